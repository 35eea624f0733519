package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/synth-data/synth/internal/termtext"
	"github.com/synth-data/synth/openapi"
)

// globs collects a repeatable flag.
type globs []string

func (g *globs) String() string     { return strings.Join(*g, ",") }
func (g *globs) Set(v string) error { *g = append(*g, v); return nil }

type importOpts struct {
	out, name    string
	include      globs
	maxOps       int
	seed         uint64
	maxBytes     byteFlag
	allowMissing bool
}

func importOpenAPIVerb(o *importOpts) *verb {
	v := newVerb("domain import-openapi", "SPEC -o DIR", "the spec (a YAML or JSON file)", 1, 1, "an OpenAPI 3.0/3.1 spec as a runnable pack",
		"Every operation becomes a tool with a handler over a synthesized database; IMPORT.md lists each operation's tool, handler and warnings. "+
			"A spec may be a folder's root file: relative $refs are read next to it (docs/imports.md).")
	v.fs.StringVar(&o.out, "o", "", "`DIR` for the pack, which must not exist or be empty (required)")
	v.fs.StringVar(&o.name, "name", "", "pack `NAME` (default: from the spec's info.title)")
	v.fs.Var(&o.include, "include", "import only paths matching this `GLOB` (* within a segment, ** across); repeatable")
	v.fs.IntVar(&o.maxOps, "max-operations", openapi.DefaultMaxOperations, "refuse specs with more operations (after --include)")
	v.fs.Uint64Var(&o.seed, "seed", 1, "seed of the synthesized database")
	o.maxBytes = byteFlag(openapi.DefaultMaxSpecBytes)
	v.fs.Var(&o.maxBytes, "max-spec-bytes", "refuse to read more than `SIZE`, the spec and the files its $refs name together (bytes, or with KiB, MiB, GiB)")
	v.fs.BoolVar(&o.allowMissing, "allow-missing-files", false, "import a multi-file spec whose $refs name absent files: the operations needing them are skipped or fail, each named in IMPORT.md")
	return v
}

// cmdImportOpenAPI turns an OpenAPI 3.0/3.1 spec into a runnable domain
// pack: synth domain import-openapi SPEC -o DIR.
func cmdImportOpenAPI(ctx context.Context, e env, args []string) error {
	var o importOpts
	v := importOpenAPIVerb(&o)
	specs, err := v.parse(args, e.stdout)
	if err != nil {
		return err
	}
	switch {
	case o.out == "":
		return v.fail("-o DIR is required: the folder to write the pack to")
	case o.maxOps < 1:
		return v.fail("--max-operations %d: must be at least 1", o.maxOps)
	}
	// A spec's names and descriptions are someone else's text.
	stdout, stderr := termtext.Writer(e.stdout), e.stderr
	out := o.out
	res, err := openapi.ImportFile(ctx, specs[0], out, openapi.Options{
		Name: o.name, Include: o.include, MaxOperations: o.maxOps, Seed: o.seed,
		MaxSpecBytes: int64(o.maxBytes), AllowMissingFiles: o.allowMissing,
	})
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return fmt.Errorf("import of %s interrupted; nothing was written to %s", specs[0], out)
		}
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	colls := "1 collection"
	if len(res.Collections) != 1 {
		colls = fmt.Sprintf("%d collections", len(res.Collections))
	}
	fmt.Fprintf(stdout, "imported %s into %s: %d tools (%d mapped to data, %d unmapped; see IMPORT.md), %s: %s; who talks to the agent: %s\n",
		specs[0], out, res.Operations, res.Mapped, res.Operations-res.Mapped, colls, strings.Join(res.Collections, ", "), res.Persona)
	fmt.Fprintf(stdout, "run it: synth run --domain %s -n 100 --out %s\n", out, releaseDir(out))
	return nil
}

// byteFlag is a size in bytes, written as a number with an optional
// unit: 1048576, 64MiB, 512KiB, 2GiB (KB, MB and GB are read as the
// binary units too).
type byteFlag int64

func (b *byteFlag) String() string {
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *byteFlag) Set(v string) error {
	s := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(strings.ToUpper(s), strings.ToUpper(u.suffix)) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return fmt.Errorf("%q is not a size: give bytes, or a number with KiB, MiB or GiB (64MiB)", v)
	}
	*b = byteFlag(n * mult)
	return nil
}
