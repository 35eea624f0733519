package main

import (
	"context"
	"fmt"
	"time"

	"github.com/synth-data/synth/export"
)

type exportOpts struct{ format, out string }

func exportVerb(o *exportOpts) *verb {
	v := newVerb("export", "DIR --format F -o OUT", "the release folder", 1, 1, "rows for trainers without the Hub layout",
		"Writes OUT/{sft,dpo}/{split}.jsonl (docs/release-format.md says what each format holds).")
	v.fs.StringVar(&o.format, "format", "", "`F`: openai (fine-tuning JSONL), sharegpt (LLaMA-Factory, Axolotl) or jsonl (synth's rows) (required)")
	v.fs.StringVar(&o.out, "o", "", "output `DIR` (required)")
	return v
}

// cmdExport converts a release for trainers that do not read the Hugging
// Face layout: synth export DIR --format openai|sharegpt|jsonl -o OUT.
func cmdExport(ctx context.Context, e env, args []string) error {
	var o exportOpts
	v := exportVerb(&o)
	pos, err := v.parse(args, e.stdout)
	if err != nil {
		return err
	}
	switch {
	case o.format == "":
		return v.fail("--format is required: openai, sharegpt or jsonl")
	case o.out == "":
		return v.fail("-o DIR is required: the folder to write the rows to")
	}
	dir, stdout := pos[0], e.stdout
	f, err := export.ParseFormat(o.format)
	if err != nil {
		return err
	}
	start := time.Now()
	files, err := export.ExportRelease(ctx, dir, f, o.out)
	if err != nil {
		return err
	}
	rows := 0
	for _, ef := range files {
		rows += ef.Rows
		fmt.Fprintf(stdout, "%-28s %7d rows %10d bytes\n", ef.Path, ef.Rows, ef.Bytes)
	}
	el := time.Since(start)
	fmt.Fprintf(stdout, "exported %s as %s into %s: %d rows in %s (%.0f rows/s)\n", dir, f, o.out, rows, el.Round(time.Millisecond), float64(rows)/max(el.Seconds(), 1e-9))
	return nil
}
