package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/synth-data/synth/export"
)

// cmdExport converts a release for trainers that do not read the Hugging
// Face layout: synth export DIR --format openai|sharegpt|jsonl -o OUT.
func cmdExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "", "openai (fine-tuning JSONL), sharegpt (LLaMA-Factory / Axolotl) or jsonl (synth's rows)")
	out := fs.String("o", "", "output directory")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: synth export DIR --format openai|sharegpt|jsonl -o OUT")
		fs.PrintDefaults()
	}
	dir, err := parseWithDir(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *format == "" || *out == "" {
		fs.Usage()
		return errUsage
	}
	f, err := export.ParseFormat(*format)
	if err != nil {
		return err
	}
	start := time.Now()
	files, err := export.ExportRelease(ctx, dir, f, *out)
	if err != nil {
		return err
	}
	rows := 0
	for _, ef := range files {
		rows += ef.Rows
		fmt.Fprintf(stdout, "%-28s %7d rows %10d bytes\n", ef.Path, ef.Rows, ef.Bytes)
	}
	el := time.Since(start)
	fmt.Fprintf(stdout, "exported %s as %s into %s: %d rows in %s (%.0f rows/s)\n", dir, f, *out, rows, el.Round(time.Millisecond), float64(rows)/max(el.Seconds(), 1e-9))
	return nil
}
