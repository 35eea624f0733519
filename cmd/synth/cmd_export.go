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
	var opts export.ExportOptions
	fs.BoolVar(&opts.DropReasoning, "drop-reasoning", false, "leave the assistant messages' reasoning out (sharegpt keeps it as <think>…</think> before each answer, jsonl as reasoning_content; openai never carries it)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: synth export DIR --format openai|sharegpt|jsonl [--drop-reasoning] -o OUT")
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
	files, err := export.ExportRelease(ctx, dir, f, *out, opts)
	if err != nil {
		return err
	}
	var rows, leftOut, reasoning, kept int
	for _, ef := range files {
		rows += ef.Rows
		leftOut += ef.LeftOut
		reasoning += ef.Reasoning
		kept += ef.ReasoningKept
		fmt.Fprintf(stdout, "%-28s %7d rows %10d bytes   reasoning kept in %d of %d messages\n", ef.Path, ef.Rows, ef.Bytes, ef.ReasoningKept, ef.Reasoning)
	}
	el := time.Since(start)
	fmt.Fprintf(stdout, "exported %s as %s into %s: %d rows in %s (%.0f rows/s)\n", dir, f, *out, rows, el.Round(time.Millisecond), float64(rows)/max(el.Seconds(), 1e-9))
	fmt.Fprintln(stdout, reasoningLine(f, opts, reasoning, kept))
	if leftOut > 0 {
		fmt.Fprintf(stdout, "left out %d preference pairs whose completion holds a tool result or a customer turn: OpenAI's preferred_output and "+
			"non_preferred_output take assistant messages only. They are in the Parquet, jsonl and sharegpt files; "+
			"synth run --dpo-tools cut ends every side at its first tool call, which OpenAI takes.\n", leftOut)
	}
	return nil
}

// reasoningLine says what became of the rows' reasoning.
func reasoningLine(f export.Format, opts export.ExportOptions, reasoning, kept int) string {
	switch {
	case reasoning == 0:
		return "reasoning: no exported message carries any"
	case f == export.FormatOpenAI:
		return fmt.Sprintf("reasoning: dropped from all %d assistant messages that carry it: OpenAI fine-tuning has no field for it", reasoning)
	case opts.DropReasoning:
		return fmt.Sprintf("reasoning: dropped from all %d assistant messages that carry it (--drop-reasoning)", reasoning)
	case f == export.FormatShareGPT:
		return fmt.Sprintf("reasoning: kept in %d of %d assistant messages, as <think>…</think> before the turn's value (LLaMA-Factory's thought words)", kept, reasoning)
	}
	return fmt.Sprintf("reasoning: kept in %d of %d assistant messages, as reasoning_content", kept, reasoning)
}
