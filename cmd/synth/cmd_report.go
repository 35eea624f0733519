package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/synth-data/synth/audit"
	"github.com/synth-data/synth/export"
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
