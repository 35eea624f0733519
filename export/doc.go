// Package export writes and reads synth's release files: Parquet datasets and atomically written files.
package export
