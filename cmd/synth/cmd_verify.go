package main

import (
	"bufio"
	"context"
	"encoding/json"
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

type verifyOpts struct {
	domain, tasks, keep string
	workers             int
	seed                uint64
	force               bool
	mem                 memoryFlag
}

func verifyVerb(o *verifyOpts) *verb {
	v := newVerb("verify", "--domain NAME|PACK FILE...", "the files of dialogues to verify", 1, -1, "verify dialogues made elsewhere against a domain",
		"FILE: JSONL (one {\"id\", \"messages\", \"ground_truth\"|\"task_id\"} a line), a τ²-bench results file, or a τ-bench trajectories file. "+
			"Prints one JSON line per dialogue with every check, then a summary (on stderr too); exits 0 when every dialogue passed, 1 when any input failed, 2 when no dialogue could be read. "+
			"--keep OUT writes the dialogues that pass as a synth release, which synth validate re-verifies (docs/verify.md).")
	v.fs.StringVar(&o.domain, "domain", "", "the domain the dialogues ran on: a built-in `NAME` or a pack folder (synth domain import-tau2 makes τ²'s) (required)")
	v.fs.StringVar(&o.tasks, "tasks", "", "τ²-bench's tasks.json `FILE`: the ground truth of lines that name a task_id")
	v.fs.IntVar(&o.workers, "workers", 0, "dialogues verified at once (default: the CPU count)")
	v.fs.Uint64Var(&o.seed, "seed", pipeline.Defaults().Seed, "the seed of a generated database (built-in domains, packs with generator.star): the seed the dialogues were made with")
	v.fs.StringVar(&o.keep, "keep", "", "write the dialogues that pass into this folder `OUT` as a synth release (new or empty, or a release synth wrote with --force)")
	v.fs.BoolVar(&o.force, "force", false, "with --keep: replace the synth release or run in that folder")
	o.mem = memoryFlag{n: defaultBound()}
	v.fs.Var(&o.mem, "max-memory", fmt.Sprintf(memoryUsage, "the check of a pack"))
	return v
}

// cmdVerify verifies dialogues made elsewhere against a domain: one JSON
// line per dialogue, then the summary. Like a test runner, it exits 0
// when every dialogue passed, 1 when any input failed (a dialogue that
// fails a check, a line that is not one, a file that cannot be read) and
// 2 when no dialogue could be read at all; --keep writes the passing ones
// whatever the status.
func cmdVerify(ctx context.Context, e env, args []string) error {
	var o verifyOpts
	v := verifyVerb(&o)
	files, err := v.parse(args, e.stdout)
	if err != nil {
		return err
	}
	if o.domain == "" {
		return v.fail("--domain is required: the built-in domain or pack folder the dialogues ran on")
	}
	stdout, stderr := e.stdout, e.stderr
	if e.b != nil && isPack(o.domain) {
		return e.b.run(ctx, append([]string{"verify"}, args...), o.mem.n, "the pack "+o.domain, stdout)
	}
	d, err := domains.Load(o.domain, o.seed)
	if err != nil {
		return err
	}
	sch, err := schemas.Compile()
	if err != nil {
		return err
	}
	opts := intake.Options{}
	if o.tasks != "" {
		if opts.Tasks, err = intake.ReadTasks(o.tasks); err != nil {
			return err
		}
	}
	job := intake.Job{
		Files:   files,
		Domain:  intake.Domain{Name: d.Name, Policy: d.Policy, Tools: d.Tools, Base: d.Base},
		Verify:  verify.ForDomain(d, sch),
		Options: opts,
		Workers: o.workers,
		Release: o.keep != "",
		Seed:    o.seed,
	}
	var keeper *pipeline.Keeper
	if o.keep != "" {
		if keeper, err = pipeline.NewKeeper(d, o.domain, o.seed, o.keep, o.force); err != nil {
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
		out["kept"] = map[string]any{"out": o.keep, "dialogues": keeper.Kept(), "not_kept": keeper.NotKept()}
	}
	if err := enc.Encode(out); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	printVerifySummary(stderr, sum, keeper, m, o.keep)
	return verifyStatus(stderr, sum)
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

// printVerifySummary says on stderr what the JSON summary holds: the
// counts, every check that failed a dialogue, unreadable files, and what
// --keep wrote.
func printVerifySummary(w io.Writer, sum *intake.Summary, keeper *pipeline.Keeper, m *release.Manifest, keep string) {
	fmt.Fprintf(w, "synth verify: %s\n", sum)
	printFailedChecks(w, sum.Checks)
	for _, f := range slices.Sorted(maps.Keys(sum.Unreadable)) {
		fmt.Fprintf(w, "  unreadable %s: %s\n", f, sum.Unreadable[f])
	}
	if keeper == nil {
		return
	}
	notKept := keeper.NotKept()
	if m == nil {
		fmt.Fprintf(w, "synth verify: no dialogue was kept; nothing written to %s\n", keep)
		return
	}
	fmt.Fprintf(w, "synth verify: kept %d dialogues in %s (%d passing not kept: %d held out, %d failing synth's row checks); check it with synth validate %s\n",
		keeper.Kept(), keep, notKept[pipeline.NotKeptHeldOut]+notKept[pipeline.NotKeptRelease],
		notKept[pipeline.NotKeptHeldOut], notKept[pipeline.NotKeptRelease], keep)
}

// printFailedChecks lists every check that failed a dialogue, those every
// domain has first, then the domain's policy rules (rule:KIND:NAME), as
// the JSON summary counts them.
func printFailedChecks(w io.Writer, checks map[string]*intake.CheckCount) {
	names := verify.OutsideChecks()
	for _, n := range slices.Sorted(maps.Keys(checks)) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	width := 16
	for _, n := range names {
		if c := checks[n]; c != nil && c.Failed > 0 {
			width = max(width, len(n))
		}
	}
	for _, n := range names {
		if c := checks[n]; c != nil && c.Failed > 0 {
			fmt.Fprintf(w, "  %-*s %d failed\n", width, n, c.Failed)
		}
	}
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
