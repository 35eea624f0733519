package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

const domainUsage = "synth domain list | show NAME|DIR | init DIR [--name NAME] | validate DIR | import-openapi SPEC -o DIR | import-tau2 DIR -o PACK"

func cmdDomain(ctx context.Context, args []string, stdout, stderr io.Writer, b *bounder) error {
	if len(args) == 0 {
		return fmt.Errorf("give a subcommand: %s", domainUsage)
	}
	switch args[0] {
	case "list":
		return domainList(stdout)
	case "show":
		return domainShow(ctx, args[1:], stdout, b)
	case "init":
		return domainInit(args[1:], stdout, stderr)
	case "validate":
		return domainValidate(ctx, args[1:], stdout, b)
	case "import-openapi":
		return cmdImportOpenAPI(ctx, args[1:], stdout, stderr)
	case "import-tau2":
		return cmdImportTau2(ctx, args[1:], stdout, stderr)
	}
	return fmt.Errorf("unknown subcommand %q: %s", args[0], domainUsage)
}

func domainList(stdout io.Writer) error {
	for _, n := range domains.Names() {
		fmt.Fprintln(stdout, n)
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

func domainShow(ctx context.Context, args []string, stdout io.Writer, b *bounder) error {
	fs := flag.NewFlagSet("domain show", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	mem := &memoryFlag{n: defaultBound()}
	fs.Var(mem, "max-memory", "memory bound of loading a pack, which runs its Starlark code (e.g. 16GiB; Linux)")
	name, err := parseDomainDir(fs, args)
	if err != nil && len(args) == 0 {
		return fmt.Errorf("give a domain name or a pack folder: synth domain show NAME|DIR (built in: %s)", strings.Join(domains.Names(), ", "))
	}
	if err != nil {
		return err
	}
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

func domainInit(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("domain init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("name", "", "the pack's name (default: the folder's name)")
	dir, err := parseDomainDir(fs, args)
	if err != nil {
		return err
	}
	if err := pack.Init(dir, *name); err != nil {
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

func domainValidate(ctx context.Context, args []string, stdout io.Writer, b *bounder) error {
	fs := flag.NewFlagSet("domain validate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	mem := &memoryFlag{n: defaultBound()}
	fs.Var(mem, "max-memory", "memory bound of the check, which runs the pack's Starlark code (e.g. 16GiB; Linux)")
	dir, err := parseDomainDir(fs, args)
	if err != nil {
		return err
	}
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

// parseDomainDir parses flags given before or after the DIR argument.
func parseDomainDir(fs *flag.FlagSet, args []string) (string, error) {
	var dir string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		dir, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", errUsage
		}
		return "", fmt.Errorf("synth %s: %w", fs.Name(), err)
	}
	if dir == "" && fs.NArg() > 0 {
		dir, args = fs.Arg(0), fs.Args()[1:]
	} else {
		args = fs.Args()
	}
	if len(args) > 0 {
		return "", fmt.Errorf("synth %s: unexpected arguments %s", fs.Name(), strings.Join(args, " "))
	}
	if dir == "" {
		return "", fmt.Errorf("give the pack folder: synth %s DIR", fs.Name())
	}
	return dir, nil
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}
