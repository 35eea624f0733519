package intake

import (
	"context"
	"fmt"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/synth-data/synth/record"
)

// Verifier judges converted dialogues: Outside as they came, Verify in
// the form of a release's rows (verify.Verifier).
type Verifier interface {
	Outside(ctx context.Context, bp *record.Blueprint, tr *record.Trajectory) record.Verdict
	Verify(ctx context.Context, bp *record.Blueprint, tr *record.Trajectory) record.Verdict
}

// Job says what to verify.
type Job struct {
	Files   []string
	Domain  Domain
	Verify  Verifier
	Options Options
	// Workers is how many dialogues are verified at once (default: the
	// CPU count).
	Workers int
	// Release asks for each passing dialogue in a release's form
	// (Outcome.Release), with Seed as its blueprint's seed.
	Release bool
	Seed    uint64
}

// Outcome is one dialogue's verdict, or why it could not be read.
type Outcome struct {
	// File is the input file the dialogue came from, as Job.Files names it.
	File       string
	Dialogue   Dialogue
	Blueprint  *record.Blueprint
	Trajectory *record.Trajectory
	Verdict    record.Verdict
	// Release is the passing dialogue in a release's form, verified as a
	// release's rows are (Job.Release); nil otherwise.
	Release *Released
}

// Released is a dialogue in a release's form (ForRelease) with the
// verdict of synth's own checks on it.
type Released struct {
	Blueprint  *record.Blueprint
	Trajectory *record.Trajectory
	Verdict    record.Verdict
}

// Summary counts the outcomes.
type Summary struct {
	Files     int                    `json:"files"`
	Dialogues int                    `json:"dialogues"`
	Passed    int                    `json:"passed"`
	Failed    int                    `json:"failed"`
	Malformed int                    `json:"malformed"`
	Checks    map[string]*CheckCount `json:"checks"`
	// Unreadable are files that could not be read at all, with why.
	Unreadable map[string]string `json:"unreadable,omitempty"`
}

// CheckCount is one check's tally.
type CheckCount struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"`
}

// Run reads every file and verifies its dialogues on Workers goroutines,
// handing each outcome to emit in file order. Memory stays bounded: at
// most a few dialogues per worker are in flight. A file that cannot be
// read is counted and skipped; only ctx or emit stop the run.
func Run(ctx context.Context, job Job, checks []string, emit func(Outcome) error) (*Summary, error) {
	workers := job.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	sum := &Summary{Files: len(job.Files), Checks: map[string]*CheckCount{}}
	for _, c := range checks {
		sum.Checks[c] = &CheckCount{}
	}
	type slot struct {
		done chan Outcome
	}
	// order carries each dialogue's slot in read order; the writer waits
	// on them in turn, so outcomes leave in file order.
	order := make(chan slot, 4*workers)
	jobs := make(chan func(), workers)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(order)
		defer close(jobs)
		for _, f := range job.Files {
			err := Read(gctx, f, job.Options, func(d Dialogue) error {
				s := slot{done: make(chan Outcome, 1)}
				select {
				case order <- s:
				case <-gctx.Done():
					return gctx.Err()
				}
				work := func() { s.done <- job.verify(gctx, f, d) }
				select {
				case jobs <- work:
				case <-gctx.Done():
					return gctx.Err()
				}
				return nil
			})
			if err != nil {
				if gctx.Err() != nil {
					return gctx.Err()
				}
				if sum.Unreadable == nil {
					sum.Unreadable = map[string]string{}
				}
				sum.Unreadable[f] = err.Error()
			}
		}
		return nil
	})
	for range workers {
		g.Go(func() error {
			for work := range jobs {
				work()
			}
			return nil
		})
	}
	g.Go(func() error {
		for s := range order {
			var o Outcome
			select {
			case o = <-s.done:
			case <-gctx.Done():
				return gctx.Err()
			}
			sum.add(o)
			if err := emit(o); err != nil {
				return err
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return sum, err
	}
	return sum, nil
}

func (j Job) verify(ctx context.Context, file string, d Dialogue) Outcome {
	o := Outcome{File: file, Dialogue: d}
	if d.Err != nil {
		return o
	}
	o.Blueprint, o.Trajectory = Convert(ctx, d, j.Domain)
	o.Verdict = j.Verify.Outside(ctx, o.Blueprint, o.Trajectory)
	if j.Release && o.Verdict.Passed {
		r := &Released{}
		r.Blueprint, r.Trajectory = ForRelease(ctx, o.Blueprint, o.Trajectory, j.Domain, d.ID, 0, j.Seed)
		r.Verdict = j.Verify.Verify(ctx, r.Blueprint, r.Trajectory)
		o.Release = r
	}
	return o
}

func (s *Summary) add(o Outcome) {
	if o.Dialogue.Err != nil {
		s.Malformed++
		return
	}
	s.Dialogues++
	if o.Verdict.Passed {
		s.Passed++
	} else {
		s.Failed++
	}
	for _, c := range o.Verdict.Checks {
		cc := s.Checks[c.Name]
		if cc == nil {
			cc = &CheckCount{}
			s.Checks[c.Name] = cc
		}
		if c.Passed {
			cc.Passed++
		} else {
			cc.Failed++
		}
	}
}

// String is the summary in a line.
func (s *Summary) String() string {
	return fmt.Sprintf("%d dialogues from %d files: %d passed, %d failed, %d malformed", s.Dialogues, s.Files, s.Passed, s.Failed, s.Malformed)
}
