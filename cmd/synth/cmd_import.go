package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/synth-data/synth/openapi"
)

const importUsage = "usage: synth domain import-openapi SPEC -o DIR [--name NAME] [--include GLOB]... [--max-operations N] [--seed S]"

// globs collects a repeatable flag.
type globs []string

func (g *globs) String() string     { return strings.Join(*g, ",") }
func (g *globs) Set(v string) error { *g = append(*g, v); return nil }

// cmdImportOpenAPI turns an OpenAPI 3.0/3.1 spec into a runnable domain
// pack: synth domain import-openapi SPEC -o DIR.
func cmdImportOpenAPI(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("domain import-openapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, importUsage)
		fs.PrintDefaults()
	}
	out := fs.String("o", "", "directory for the pack (must not exist or be empty)")
	name := fs.String("name", "", "pack name (default: from the spec's info.title)")
	var include globs
	fs.Var(&include, "include", "import only paths matching this glob (* within a segment, ** across); repeatable")
	maxOps := fs.Int("max-operations", openapi.DefaultMaxOperations, "refuse specs with more operations (after --include)")
	seed := fs.Uint64("seed", 1, "seed of the synthesized database")
	// Flags may come before or after the spec.
	var specs []string
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return errUsage
		}
		if fs.NArg() == 0 {
			break
		}
		specs = append(specs, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	switch {
	case len(specs) != 1:
		fmt.Fprintln(stderr, importUsage)
		return errUsage
	case *out == "":
		fmt.Fprintln(stderr, "-o DIR is required: the folder to write the pack to\n"+importUsage)
		return errUsage
	case *maxOps < 1:
		return fmt.Errorf("--max-operations %d: must be at least 1", *maxOps)
	}
	res, err := openapi.ImportFile(ctx, specs[0], *out, openapi.Options{
		Name: *name, Include: include, MaxOperations: *maxOps, Seed: *seed,
	})
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	fmt.Fprintf(stdout, "imported %s into %s: %d tools (%d mapped to data, %d unmapped; see IMPORT.md), %d collections: %s\n",
		specs[0], *out, res.Operations, res.Mapped, res.Operations-res.Mapped, len(res.Collections), strings.Join(res.Collections, ", "))
	fmt.Fprintf(stdout, "run it: synth run --domain %s -n 100 --out %s\n", *out, releaseDir(*out))
	return nil
}
