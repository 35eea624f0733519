// Package export writes and reads synth's release files: Parquet datasets
// and atomically written files.
//
// A release's rows are Hugging Face datasets: an sft config of verified
// dialogues (SFTRow) and a dpo config of preference pairs (DPORow), each
// split in shards named {split}-{i:05d}-of-{n:05d}.parquet. Writer streams
// rows into them with one buffered row group per split, under hidden
// temporary names that get their final names only in Close, once n is
// known, so an interrupted write leaves no shard a loader would pick up.
// The column contract (SFTSchema, DPOSchema, FormatVersion) stores every
// message and tool as a JSON object in a Json() column, written by
// AppendMessageJSON in one canonical key order, so a row loaded with
// datasets is the conversation as a chat template expects it. ReadSFT,
// ScanSFT and their DPO twins hold a file to that contract, name the file
// on any mismatch, and read format 1 releases as well; the Scan functions
// decode a row group at a time, so memory does not grow with the file.
//
// ExportRelease (synth export) turns a release's Parquet into the JSONL
// other trainers read: OpenAI fine-tuning, ShareGPT for LLaMA-Factory and
// Axolotl, or synth's rows as JSON lines, each shape from the trainer's
// own documentation. Reasoning goes where each trainer reads it (ShareGPT:
// <think>…</think> before a turn's value, LLaMA-Factory's thought words;
// jsonl: reasoning_content), or nowhere under ExportOptions.DropReasoning
// and in OpenAI's format, which has no field for it; every ExportedFile
// counts the messages that carried it and those that kept it. A row a
// format cannot hold is left out and counted (OpenAI preference rows
// take assistant completions only: AssistantOnly). AtomicFile and WriteFileAtomic give every other file
// (manifest, card, chunk summaries, reports, exports) the same guarantee:
// after a crash the final name holds the old file or the new one, never
// part of one.
//
// Output is a pure function of the rows written per split and the Options:
// the same rows give byte-identical files, which is what lets a release be
// the same whatever the workers, resumes or shards. The package does not
// choose, verify or order rows (pipeline does) and writes no manifest; a
// Writer and an AtomicFile belong to one goroutine.
package export
