package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/domains/airline"
	"github.com/synth-data/synth/domains/retail"
	"github.com/synth-data/synth/domains/tau2"
)

const importTau2Usage = "usage: synth domain import-tau2 DIR -o PACK   (DIR: data/tau2/domains/retail or airline of a τ²-bench checkout)"

// cmdImportTau2 turns a τ²-bench domain folder into a pack.
func cmdImportTau2(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("domain import-tau2", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() { fmt.Fprintln(stderr, importTau2Usage) }
	out := fset.String("o", "", "folder for the pack (must not exist or be empty)")
	dirs, help, err := parseInterleaved(fset, args)
	if help {
		return nil
	}
	if err != nil {
		return errUsage
	}
	if len(dirs) != 1 || *out == "" {
		fmt.Fprintln(stderr, importTau2Usage)
		return errUsage
	}
	res, err := tau2.Import(ctx, tau2.ImportOptions{
		Dir:       dirs[0],
		Out:       *out,
		Templates: map[string]fs.FS{"retail": retail.FS(), "airline": airline.FS()},
		Pack:      domains.PackOptions(),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported τ²-bench's %s into %s:", res.Domain, *out)
	for _, c := range slices.Sorted(maps.Keys(res.Records)) {
		fmt.Fprintf(stdout, " %d %s,", res.Records[c], c)
	}
	fmt.Fprintf(stdout, " %d of its %d tasks held out (those that write)\n", res.Holdout, res.Tasks)
	fmt.Fprintf(stdout, "run it with: synth run --domain %s --out OUT\n", *out)
	return nil
}
