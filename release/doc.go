// Package release is the format of a finished release, apart from the
// run that makes it: the manifest (what every file is, with its hash,
// and the counts, checks and statistics of the data), the dataset card
// rendered from it (Card), the statistics merged from chunks (Stats, with
// HyperLogLog sketches for distinct shares) and the summary each chunk of
// a run leaves (ChunkSummary). The pipeline writes these; synth validate,
// synth report and synth emulate read them through this package, never
// through the pipeline.
package release
