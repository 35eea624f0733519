package main

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"slices"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/domains/airline"
	"github.com/synth-data/synth/domains/retail"
	"github.com/synth-data/synth/domains/tau2"
	"github.com/synth-data/synth/internal/termtext"
)

func importTau2Verb(out *string) *verb {
	v := newVerb("domain import-tau2", "DIR -o PACK", "τ²-bench's domain folder (data/tau2/domains/retail or airline of a τ²-bench checkout)", 1, 1,
		"τ²-bench's retail or airline as a pack",
		"No blueprint whose writes equal a τ² task's is ever released (docs/imports.md).")
	v.fs.StringVar(out, "o", "", "folder for the pack, which must not exist or be empty (required)")
	v.meta["o"] = "PACK"
	return v
}

// cmdImportTau2 turns a τ²-bench domain folder into a pack.
func cmdImportTau2(ctx context.Context, e env, args []string) error {
	var out string
	v := importTau2Verb(&out)
	dirs, err := v.parse(args, e.stdout)
	if err != nil {
		return err
	}
	if out == "" {
		return v.fail("-o PACK is required: the folder to write the pack to")
	}
	stdout := termtext.Writer(e.stdout)
	res, err := tau2.Import(ctx, tau2.ImportOptions{
		Dir:       dirs[0],
		Out:       out,
		Templates: map[string]fs.FS{"retail": retail.FS(), "airline": airline.FS()},
		Pack:      domains.PackOptions(),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported τ²-bench's %s into %s:", res.Domain, out)
	for _, c := range slices.Sorted(maps.Keys(res.Records)) {
		fmt.Fprintf(stdout, " %d %s,", res.Records[c], c)
	}
	fmt.Fprintf(stdout, " %d of its %d tasks held out (those that write)\n", res.Holdout, res.Tasks)
	fmt.Fprintf(stdout, "run it with: synth run --domain %s --out OUT\n", out)
	return nil
}
