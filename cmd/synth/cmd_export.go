package main

import (
	"context"
	"fmt"
	"time"

	"github.com/synth-data/synth/export"
)

type exportOpts struct {
	format, out string
	export.ExportOptions
}

func exportVerb(o *exportOpts) *verb {
	v := newVerb("export", "DIR --format F -o OUT", "the release folder", 1, 1, "rows for trainers without the Hub layout",
		"Writes OUT/{sft,dpo}/{split}.jsonl (docs/release-format.md says what each format holds).")
	v.fs.StringVar(&o.format, "format", "", "`F`: openai (fine-tuning JSONL), sharegpt (LLaMA-Factory, Axolotl) or jsonl (synth's rows) (required)")
	v.fs.StringVar(&o.out, "o", "", "output `DIR` (required)")
	v.fs.BoolVar(&o.DropReasoning, "drop-reasoning", false, "leave the assistant messages' reasoning out (sharegpt keeps it as <think>…</think> before each answer, jsonl as reasoning_content; openai never carries it)")
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
	files, err := export.ExportRelease(ctx, dir, f, o.out, o.ExportOptions)
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
	fmt.Fprintf(stdout, "exported %s as %s into %s: %d rows in %s (%.0f rows/s)\n", dir, f, o.out, rows, el.Round(time.Millisecond), float64(rows)/max(el.Seconds(), 1e-9))
	fmt.Fprintln(stdout, reasoningLine(f, o.ExportOptions, reasoning, kept))
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
