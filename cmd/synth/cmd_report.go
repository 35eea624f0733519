package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/synth-data/synth/audit"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/realpath"
)

func cmdReport(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	out := fs.String("o", "", "write the report to FILE (default: DIR/report.html)")
	rows := fs.Int("rows", audit.DefaultReportRows, "dialogues to show")
	dir, err := parseWithDir(fs, args)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(dir, "report.html")
	}
	if err := outsideRelease(dir, *out); err != nil {
		return err
	}
	// Written atomically: a report that fails halfway must not replace
	// a good one.
	f, err := export.CreateAtomic(*out)
	if err != nil {
		return err
	}
	if err := (audit.Reporter{Rows: *rows}).Write(ctx, dir, f); err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}

// releaseNames are the names a release owns at its top: its manifest, its
// card, its data folders and the work dir of the run that makes it.
var releaseNames = []string{"manifest.json", "README.md", "sft", "dpo", "blueprints", "rejected", "domain", ".synth-work"}

// outsideRelease refuses a report path that is one of the release's own
// files or lies in one of its folders: the report replaces whatever is at
// its path, and a release's files must stay as its manifest lists them.
// Links on the way are resolved, so another spelling of the path is
// caught too.
func outsideRelease(dir, out string) error {
	inside, ok := realpath.Within(dir, out)
	if !ok {
		return nil
	}
	rel, err := realpath.Resolve(dir)
	if err != nil {
		return err
	}
	first, _, _ := strings.Cut(filepath.ToSlash(inside), "/")
	for _, name := range releaseNames {
		if inside == "." || strings.EqualFold(first, name) {
			return fmt.Errorf("-o %s is the release's own %s: synth report never writes over a release's files; give another -o (the default is %s)",
				out, filepath.ToSlash(filepath.Join(filepath.Base(rel), inside)), filepath.Join(dir, "report.html"))
		}
	}
	return nil
}
