package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/internal/termtext"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

func domainVerb() *verb {
	return newVerb("domain", "", "", 0, 0, "list, show, scaffold, check and import domains",
		"A domain pack is a folder: domain.yaml, tools.json, handlers.star, a database and policy.md (docs/domains.md).")
}

// domainCommands are synth domain's sub-commands.
func domainCommands() []command {
	return []command{
		{verb: domainListVerb, run: domainList},
		{verb: func() *verb { return domainShowVerb(new(memoryFlag)) }, run: domainShow},
		{verb: func() *verb { return domainInitVerb(new(string)) }, run: domainInit},
		{verb: func() *verb { return domainValidateVerb(new(memoryFlag)) }, run: domainValidate},
		{verb: func() *verb { return importOpenAPIVerb(new(importOpts)) }, run: cmdImportOpenAPI},
		{verb: func() *verb { return importTau2Verb(new(string)) }, run: cmdImportTau2},
		{verb: func() *verb { return importMCPVerb(new(importMCPOpts)) }, run: cmdImportMCP},
	}
}

func domainListVerb() *verb {
	return newVerb("domain list", "", "", 0, 0, "list the built-in domains", "")
}

func domainList(_ context.Context, e env, args []string) error {
	if _, err := domainListVerb().parse(args, e.stdout); err != nil {
		return err
	}
	for _, n := range domains.Names() {
		fmt.Fprintln(e.stdout, n)
	}
	return nil
}

func isDir(arg string) bool {
	info, err := os.Stat(arg)
	return err == nil && info.IsDir()
}

// isPack tells a pack folder from a built-in domain's name: a folder
// holding a manifest, or any folder not named like a built-in.
func isPack(arg string) bool {
	if _, err := os.Stat(filepath.Join(arg, pack.ManifestFile)); err == nil {
		return true
	}
	return isDir(arg) && !slices.Contains(domains.Names(), arg)
}

// memoryUsage is the --max-memory flag's help, for what runs code.
const memoryUsage = "memory bound of %s, which runs its Starlark code: `SIZE` such as 16GiB (default 8GiB, or three quarters of the memory if less; Linux)"

func domainShowVerb(mem *memoryFlag) *verb {
	v := newVerb("domain show", "NAME|DIR", "a domain name or a pack folder (built in: "+strings.Join(domains.Names(), ", ")+")", 1, 1,
		"a domain's tools and policy (built-in or pack)", "")
	*mem = memoryFlag{n: defaultBound()}
	v.fs.Var(mem, "max-memory", fmt.Sprintf(memoryUsage, "loading a pack"))
	return v
}

func domainShow(ctx context.Context, e env, args []string) error {
	var mem memoryFlag
	pos, err := domainShowVerb(&mem).parse(args, e.stdout)
	if err != nil {
		return err
	}
	// A pack's policy, descriptions and problems are someone else's text.
	name, stdout, b := pos[0], termtext.Writer(e.stdout), e.b
	seed := pipeline.Defaults().Seed
	if isPack(name) {
		if b != nil {
			return b.run(ctx, append([]string{"domain", "show"}, args...), mem.n, "the pack "+name, stdout)
		}
		p, err := pack.LoadDir(ctx, name, seed, domains.PackOptions())
		if err != nil {
			return err
		}
		printDomain(stdout, p.Manifest.Name, p.Manifest.Version, p.Tools, p.Policy)
		return nil
	}
	d, err := domains.Load(name, seed)
	if err != nil {
		return err
	}
	printDomain(stdout, d.Name, d.Version, d.Tools, d.Policy)
	return nil
}

func printDomain(w io.Writer, name, version string, kit *tools.Toolkit, policy string) {
	fmt.Fprintf(w, "domain %s %s\n\ntools:\n", name, version)
	for _, t := range kit.Tools() {
		fmt.Fprintf(w, "  %-32s %-8s %s\n", t.Name, t.Kind, firstSentence(t.Description))
	}
	fmt.Fprintf(w, "\npolicy:\n%s\n", policy)
}

func domainInitVerb(name *string) *verb {
	v := newVerb("domain init", "DIR", "the folder for the new pack", 1, 1, "scaffold a small pack that runs as it is",
		"The folder must not exist or be empty.")
	v.fs.StringVar(name, "name", "", "the pack's `NAME` (default: the folder's name)")
	return v
}

func domainInit(_ context.Context, e env, args []string) error {
	var name string
	pos, err := domainInitVerb(&name).parse(args, e.stdout)
	if err != nil {
		return err
	}
	dir, stdout := pos[0], termtext.Writer(e.stdout)
	if err := pack.Init(dir, name); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "created a helpdesk pack in %s\ncheck it:  synth domain validate %s\nrun it:    synth run --domain %s -n 20 --out %s\n",
		dir, dir, dir, releaseDir(dir))
	return nil
}

// releaseDir suggests where a pack's release goes: out/NAME, unless that
// is the pack folder itself.
func releaseDir(pack string) string {
	out := filepath.Join("out", filepath.Base(filepath.Clean(pack)))
	if out == filepath.Clean(pack) {
		out += "-release"
	}
	return out
}

func domainValidateVerb(mem *memoryFlag) *verb {
	v := newVerb("domain validate", "DIR", "the pack folder", 1, 1, "check a pack: every problem as file:line: message", "")
	*mem = memoryFlag{n: defaultBound()}
	v.fs.Var(mem, "max-memory", fmt.Sprintf(memoryUsage, "the check"))
	return v
}

func domainValidate(ctx context.Context, e env, args []string) error {
	var mem memoryFlag
	pos, err := domainValidateVerb(&mem).parse(args, e.stdout)
	if err != nil {
		return err
	}
	dir, stdout, b := pos[0], termtext.Writer(e.stdout), e.b
	if !isDir(dir) {
		return fmt.Errorf("%s is not a folder: give a pack folder (synth domain init DIR makes one)", dir)
	}
	if b != nil {
		return b.run(ctx, append([]string{"domain", "validate"}, args...), mem.n, "the pack "+dir, stdout)
	}
	// Loading runs every check of pack.Validate and fails with all the
	// problems, so one pass both checks the pack and counts what it holds.
	p, err := pack.LoadDir(ctx, dir, pipeline.Defaults().Seed, domains.PackOptions())
	if err == nil {
		// Every handler once, as a run would call it, under the same
		// bounds: a handler that cannot be called is found here.
		if problems := pack.Probe(ctx, p); len(problems) > 0 {
			err = problems
		}
	}
	if problems, ok := errors.AsType[pack.Problems](err); ok {
		for _, p := range problems {
			p.File = filepath.Join(dir, p.File)
			fmt.Fprintln(stdout, p)
		}
		return fmt.Errorf("%s: %d problem(s)", dir, len(problems))
	}
	if err != nil {
		return err
	}
	kinds := map[string]int{}
	for _, t := range p.Tools.Tools() {
		kinds[t.Kind]++
	}
	records := 0
	for _, c := range p.Base.Collections() {
		records += len(p.Base.Keys(c))
	}
	fmt.Fprintf(stdout, "ok: %s %s, %d tools (%d read, %d write, %d generic), %d collections, %d records\n",
		p.Manifest.Name, p.Manifest.Version, len(p.Tools.Tools()),
		kinds[record.KindRead], kinds[record.KindWrite], kinds[record.KindGeneric],
		len(p.Manifest.Collections), records)
	return nil
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}
