package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/synth-data/synth/pipeline"
)

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "directory for the merged release")
	force := fs.Bool("force", false, "replace a release made with another config in -o")
	// Flags may come after the shard directories.
	dirs, help, err := parseInterleaved(fs, args)
	if help {
		return nil
	}
	if err != nil {
		return errUsage
	}
	if *out == "" || len(dirs) == 0 {
		fmt.Fprintln(stderr, "usage: synth merge OUT... -o DIR")
		return errUsage
	}
	m, err := pipeline.Merge(dirs, *out, *force)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d shard outputs into %s: %d SFT rows", len(dirs), *out, m.Counts.SFTRows)
	if m.DPO != nil {
		fmt.Fprintf(stdout, ", %d DPO pairs", m.DPO.Pairs)
	}
	fmt.Fprintln(stdout)
	return nil
}
