package main

import (
	"context"
	"fmt"

	"github.com/synth-data/synth/pipeline"
)

type mergeOpts struct {
	out   string
	force bool
}

func mergeVerb(o *mergeOpts) *verb {
	v := newVerb("merge", "OUT... -o DIR", "the shard outputs", 1, -1, "merge the outputs of synth run --shard I/N",
		"Give every shard's --out folder; the release is byte-identical to the one an unsharded run writes.")
	v.fs.StringVar(&o.out, "o", "", "`DIR` for the merged release (required)")
	v.fs.BoolVar(&o.force, "force", false, "replace a release made with another config in -o")
	return v
}

func cmdMerge(_ context.Context, e env, args []string) error {
	var o mergeOpts
	v := mergeVerb(&o)
	dirs, err := v.parse(args, e.stdout)
	if err != nil {
		return err
	}
	if o.out == "" {
		return v.fail("-o DIR is required: the folder for the merged release")
	}
	m, err := pipeline.Merge(dirs, o.out, o.force)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "merged %d shard outputs into %s: %d SFT rows", len(dirs), o.out, m.Counts.SFTRows)
	if m.DPO != nil {
		fmt.Fprintf(e.stdout, ", %d DPO pairs", m.DPO.Pairs)
	}
	fmt.Fprintln(e.stdout)
	return nil
}
