// Package release is the format of a finished release, apart from the
// run that makes it: the manifest (what every file is, with its hash,
// and the counts, checks and statistics of the data), the dataset card
// rendered from it (Card), the statistics merged from chunks (Stats, with
// HyperLogLog sketches for distinct shares) and the summary each chunk of
// a run leaves (ChunkSummary). The pipeline writes these; synth validate,
// synth report and synth emulate read them through this package, never
// through the pipeline.
//
// It knows no engine and no domain by name: what the card says of the
// engine that played the dialogues comes from that engine
// (engine.Kind.Card, passed to Card), and the domain arrives as a
// domain.Domain (DomainFiles), so a new engine or domain changes nothing
// here.
package release
