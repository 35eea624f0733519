package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/intake"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/release"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

const verifyUsage = "usage: synth verify --domain NAME|PACK [--seed S] [--tasks tasks.json] [--keep OUT [--force]] [--workers N] FILE...\n" +
	"  FILE: JSONL (one {\"id\", \"messages\", \"ground_truth\"|\"task_id\"} a line), a τ²-bench results file, or a τ-bench trajectories file\n" +
	"  --keep OUT writes the dialogues that pass as a synth release (SFT Parquet, card, manifest), which synth validate re-verifies"

// verifyLine is one dialogue's verdict as synth verify prints it.
type verifyLine struct {
	ID     string                  `json:"id"`
	Source string                  `json:"source"`
	Format string                  `json:"format,omitempty"`
	Pass   bool                    `json:"pass"`
	Error  string                  `json:"error,omitempty"`
	Checks map[string]verifyResult `json:"checks,omitempty"`
	// Kept and NotKept are set with --keep: whether the dialogue is in
	// the release, and why a passing one is not.
	Kept    *bool  `json:"kept,omitempty"`
	NotKept string `json:"not_kept,omitempty"`
}

type verifyResult struct {
	Pass   bool   `json:"pass"`
	Reason string `json:"reason,omitempty"`
}

// cmdVerify verifies dialogues made elsewhere against a domain: one JSON
// line per dialogue, then the summary. Like a test runner, it exits 0
// when every dialogue passed, 1 when any input failed (a dialogue that
// fails a check, a line that is not one, a file that cannot be read) and
// 2 when no dialogue could be read at all; --keep writes the passing ones
// whatever the status.
func cmdVerify(ctx context.Context, args []string, stdout, stderr io.Writer, b *bounder) (err error) {
	fset := flag.NewFlagSet("verify", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprintln(stderr, verifyUsage)
		fset.PrintDefaults()
	}
	domain := fset.String("domain", "", "the domain the dialogues ran on: a built-in name or a pack folder (synth domain import-tau2 makes τ²'s)")
	tasksFile := fset.String("tasks", "", "τ²-bench's tasks.json: the ground truth of lines that name a task_id")
	workers := fset.Int("workers", 0, "dialogues verified at once (default: CPU count)")
	seed := fset.Uint64("seed", pipeline.Defaults().Seed, "the seed of a generated database (built-in domains, packs with generator.star): the seed the dialogues were made with")
	keep := fset.String("keep", "", "write the dialogues that pass into this folder as a synth release (new or empty, or a release synth wrote with --force)")
	force := fset.Bool("force", false, "with --keep: replace the synth release or run in that folder")
	mem := &memoryFlag{n: defaultBound()}
	fset.Var(mem, "max-memory", "memory bound of the check, which runs a pack's Starlark code (e.g. 16GiB; Linux)")
	files, help, err := parseInterleaved(fset, args)
	if help {
		return nil
	}
	if err != nil {
		return errUsage
	}
	if *domain == "" || len(files) == 0 {
		fmt.Fprintln(stderr, verifyUsage)
		return errUsage
	}
	if b != nil && isPack(*domain) {
		return b.run(ctx, append([]string{"verify"}, args...), mem.n, "the pack "+*domain, stdout)
	}
	d, err := domains.Load(*domain, *seed)
	if err != nil {
		return err
	}
	sch, err := schemas.Compile()
	if err != nil {
		return err
	}
	opts := intake.Options{}
	if *tasksFile != "" {
		if opts.Tasks, err = intake.ReadTasks(*tasksFile); err != nil {
			return err
		}
	}
	job := intake.Job{
		Files:   files,
		Domain:  intake.Domain{Name: d.Name, Policy: d.Policy, Tools: d.Tools, Base: d.Base},
		Verify:  verify.ForDomain(d, sch),
		Options: opts,
		Workers: *workers,
		Release: *keep != "",
		Seed:    *seed,
	}
	var keeper *pipeline.Keeper
	if *keep != "" {
		if keeper, err = pipeline.NewKeeper(d, *domain, *seed, *keep, *force); err != nil {
			return err
		}
		keeper.Sources(files)
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	sum, err := intake.Run(ctx, job, verify.OutsideChecks(), func(o intake.Outcome) error {
		l := lineOf(o)
		if keeper != nil && o.Dialogue.Err == nil {
			var r intake.Released
			if o.Release != nil {
				r = *o.Release
			}
			why, err := keeper.Add(o.File, o.Verdict.Passed, r.Blueprint, r.Trajectory, r.Verdict)
			if err != nil {
				return err
			}
			kept := o.Verdict.Passed && why == ""
			l.Kept, l.NotKept = &kept, why
		}
		return enc.Encode(l)
	})
	if err != nil {
		if keeper != nil {
			keeper.Abort()
		}
		return err
	}
	out := map[string]any{"summary": sum}
	var m *release.Manifest
	if keeper != nil {
		if m, err = keeper.Close(ctx); err != nil {
			return err
		}
		out["kept"] = map[string]any{"out": *keep, "dialogues": keeper.Kept(), "not_kept": keeper.NotKept()}
	}
	if err := enc.Encode(out); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "synth verify: %s\n", sum)
	for _, name := range verify.OutsideChecks() {
		if c := sum.Checks[name]; c != nil && c.Failed > 0 {
			fmt.Fprintf(stderr, "  %-16s %d failed\n", name, c.Failed)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(sum.Unreadable)) {
		fmt.Fprintf(stderr, "  unreadable %s: %s\n", f, sum.Unreadable[f])
	}
	defer func() {
		if err == nil {
			err = verifyStatus(stderr, sum)
		}
	}()
	if keeper != nil {
		notKept := keeper.NotKept()
		switch {
		case m == nil:
			fmt.Fprintf(stderr, "synth verify: no dialogue was kept; nothing written to %s\n", *keep)
		default:
			fmt.Fprintf(stderr, "synth verify: kept %d dialogues in %s (%d passing not kept: %d held out, %d failing synth's row checks); check it with synth validate %s\n",
				keeper.Kept(), *keep, notKept[pipeline.NotKeptHeldOut]+notKept[pipeline.NotKeptRelease],
				notKept[pipeline.NotKeptHeldOut], notKept[pipeline.NotKeptRelease], *keep)
		}
	}
	return nil
}

// verifyStatus is the exit status of a verify that ran: an error that
// only sets it, after the summary said why.
func verifyStatus(stderr io.Writer, sum *intake.Summary) error {
	switch {
	case sum.Dialogues == 0:
		fmt.Fprintln(stderr, "synth verify: no dialogue could be read (see the unreadable files and malformed lines above)")
		return exitStatus(2)
	case sum.Failed > 0 || sum.Malformed > 0 || len(sum.Unreadable) > 0:
		return exitStatus(1)
	}
	return nil
}

func lineOf(o intake.Outcome) verifyLine {
	d := o.Dialogue
	l := verifyLine{ID: d.ID, Source: d.Source, Format: d.Format}
	if d.Err != nil {
		l.Error = d.Err.Error()
		return l
	}
	l.Pass = o.Verdict.Passed
	l.Checks = make(map[string]verifyResult, len(o.Verdict.Checks))
	for _, c := range o.Verdict.Checks {
		l.Checks[c.Name] = verifyResult{Pass: c.Passed, Reason: c.Reason}
	}
	return l
}
