package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/synth-data/synth/corpus"
	"github.com/synth-data/synth/internal/termtext"
	"github.com/synth-data/synth/release"
	"github.com/synth-data/synth/verify"
)

type statsOpts struct {
	asJSON, language bool
	sample, top      int
}

func statsVerb(o *statsOpts) *verb {
	v := newVerb("stats", "DIR", "the release folder", 1, 1, "a release's counts, rates and distributions",
		"Everything but --language comes from the manifest. --language measures the first --sample dialogues (train, then validation, then test): "+
			"per role, sentences used in more than 2% (customer) or 5% (agent) of dialogues, the most common ones, distinct-1 and distinct-2, "+
			"and the situations the dialogues hold (corrections, pushbacks, tool errors, transfers, recovery rows, ...).")
	v.fs.BoolVar(&o.asJSON, "json", false, "print JSON")
	v.fs.BoolVar(&o.language, "language", false, "measure the dialogues' language: repeated sentences, distinct-n per role, situation counts")
	v.fs.IntVar(&o.sample, "sample", 1000, "with --language: dialogues measured (train, validation, then test; 0: all)")
	v.fs.IntVar(&o.top, "top", 5, "with --language: most common sentences shown per role")
	return v
}

func cmdStats(ctx context.Context, e env, args []string) error {
	var o statsOpts
	v := statsVerb(&o)
	pos, err := v.parse(args, e.stdout)
	if err != nil {
		return err
	}
	stdout, dir := e.stdout, pos[0]
	m, err := release.ReadManifest(dir)
	if err != nil {
		return fmt.Errorf("%s is not a synth release (no readable manifest.json): %w", dir, err)
	}
	// The figures are the manifest's: they hold only while the files it
	// lists are there as written.
	if err := m.CheckFiles(dir, ""); err != nil {
		return err
	}
	if o.language {
		if o.sample < 0 || o.top < 0 {
			return v.fail("--sample and --top take 0 or more")
		}
		meter, err := corpus.Measure(ctx, dir, m, o.sample)
		if err != nil {
			return fmt.Errorf("--language %s: %w", dir, err)
		}
		sum := meter.Summary(o.top)
		if o.asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(sum)
		}
		printLanguage(termtext.Writer(stdout), dir, sum)
		return nil
	}
	if o.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"counts": m.Counts, "checks": m.Checks, "failures": m.Failures, "stats": m.Stats, "dpo": m.DPO})
	}
	// Names and counts come from the release's manifest.
	printStats(termtext.Writer(stdout), dir, m)
	return nil
}

// printStats prints what the manifest says of a release: counts, pass
// rates, the dialogues' shape and the distributions of its controls.
func printStats(w io.Writer, dir string, m *release.Manifest) {
	c := m.Counts
	fmt.Fprintf(w, "release %s  (synth %s, domain %s %s, seed %d)\n\n", dir, m.SynthVersion, m.Domain.Name, m.Domain.Version, m.Seed)
	fmt.Fprintf(w, "blueprints %d  simulated %d  verified %d  rejected %d\n", c.Blueprints, c.Simulated, c.Verified, c.Rejected)
	fmt.Fprintf(w, "SFT rows %d  (train %d, validation %d, test %d)\n\n", c.SFTRows, c.BySplit["train"], c.BySplit["validation"], c.BySplit["test"])
	printChecks(w, m.Checks)
	s := m.Stats
	if s == nil {
		return
	}
	fmt.Fprintln(w)
	chain, classes := printShape(w, s)
	for _, h := range []struct {
		name string
		m    map[string]int
		over int
	}{{"writes per task", s.Writes, 0}, {"reads needed per write", s.Evidence, 0}, {"behaviour", s.Behaviors, 0}, {"intent", s.Intents, 0},
		{"situation (share of tasks)", s.Situations, s.Rows}, {"ending", s.Endings, 0},
		{"chain length (ground-truth actions per task)", chain, 0}, {"action class (assistant turns)", classes, 0},
		{"rejected by check", m.Failures, 0}} {
		if len(h.m) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", h.name)
		printHist(w, h.m, h.over)
	}
	if m.DPO != nil {
		fmt.Fprintf(w, "\nDPO pairs %d from %d flawed attempts (no opportunity %d, verified anyway %d, other failure %d); failure types:\n",
			m.DPO.Pairs, m.DPO.Attempts, m.DPO.NotFired, m.DPO.NoFailure, m.DPO.OtherReason)
		printHist(w, m.DPO.ByFailure, 0)
		if len(m.DPO.LengthRatio) > 0 {
			fmt.Fprintln(w, "\nDPO chosen/rejected length ratio (characters of the completion):")
			printHist(w, m.DPO.LengthRatio, 0)
		}
	}
}

// printChecks prints each check's pass rate: the checks every dialogue
// gets, then the policy's rules (rule:KIND:NAME), each column as wide as
// its longest name.
func printChecks(w io.Writer, checks map[string]*release.CheckStats) {
	fmt.Fprintln(w, "checks:")
	names := slices.Sorted(maps.Keys(checks))
	width := 16
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, rules := range []bool{false, true} {
		if rules {
			fmt.Fprintln(w, "policy rules:")
		}
		for _, n := range names {
			if strings.HasPrefix(n, verify.RulePrefix) == rules {
				fmt.Fprintf(w, "  %-*s %6.2f%%  (%d failed)\n", width, n, 100*checks[n].Rate, checks[n].Failed)
			}
		}
	}
}

// printShape prints the dialogues' lengths, diversity and credit labels,
// and returns the label histograms for the tables that follow.
func printShape(w io.Writer, s *release.Stats) (chain, classes map[string]int) {
	for _, row := range []struct {
		name string
		v    release.Summary
	}{{"messages/dialogue", s.Messages}, {"user turns/dialogue", s.UserTurns}, {"tool calls/dialogue", s.ToolCalls}, {"read calls/dialogue", s.ReadCalls}} {
		fmt.Fprintf(w, "%-22s mean %6.2f  min %3d  max %3d\n", row.name, row.v.Mean, row.v.Min, row.v.Max)
	}
	fmt.Fprintf(w, "distinct first user messages     %.1f%%\n", 100*s.DistinctFirst)
	fmt.Fprintf(w, "distinct user-message sequences  %.1f%%\n", 100*s.DistinctUsers)
	for _, role := range []string{"user", "assistant"} {
		if d := s.DistinctN[role]; d != nil {
			fmt.Fprintf(w, "%-9s text distinct-1 %.4f  distinct-2 %.4f\n", role, d["distinct_1"], d["distinct_2"])
		}
	}
	fmt.Fprintf(w, "tool-sequence entropy            %.2f bits\n", s.ToolSequenceEntropy)
	cr := s.Credit
	if cr == nil || cr.Rows == 0 {
		return nil, nil
	}
	fmt.Fprintf(w, "chain length (ground-truth actions) mean %.2f\n", float64(cr.ChainSteps)/float64(cr.Rows))
	fmt.Fprintf(w, "label coverage (V_d)             %.1f%% of chain steps; %d of %d rows fully covered\n", 100*cr.Coverage, cr.FullyCovered, cr.Rows)
	for _, e := range slices.Sorted(maps.Keys(cr.Gold)) {
		g := cr.Gold[e]
		fmt.Fprintf(w, "gold action recall (%s)%s %.1f%%  (%d of %d assistant turns)\n", e, strings.Repeat(" ", max(1, 12-len(e))), 100*g.Recall, g.Matched, g.Turns)
	}
	return cr.ChainLength, cr.Classes
}

// printHist prints counts with their shares of over, or of their sum
// when over is 0.
func printHist(w io.Writer, m map[string]int, over int) {
	total := over
	if total == 0 {
		for _, v := range m {
			total += v
		}
	}
	// Names as long as an intent (refuse:exchange_delivered_order_items)
	// widen the column, so every count and bar starts at the same place.
	width := 22
	for k := range m {
		width = max(width, utf8.RuneCountInString(k))
	}
	for _, k := range release.SortedCounts(m) {
		share := float64(m[k]) / float64(total)
		fmt.Fprintf(w, "  %-*s %6d  %5.1f%%  %s\n", width, k, m[k], 100*share, strings.Repeat("█", int(share*40+0.5)))
	}
}

// printLanguage prints what corpus measured of a release's dialogues.
func printLanguage(w io.Writer, dir string, s corpus.Summary) {
	fmt.Fprintf(w, "release %s: language of %d dialogues\n", dir, s.Dialogues)
	for _, name := range []string{corpus.Customer, corpus.Agent} {
		r := s.Roles[name]
		who := map[string]string{corpus.Customer: "customer", corpus.Agent: "agent"}[name]
		fmt.Fprintf(w, "\n%s: %d sentences, %d distinct; %.1f%% of uses are of a sentence used 5 times or more\n", who, r.Sentences, r.Distinct, 100*r.RepeatedShare)
		fmt.Fprintf(w, "  distinct-1 %.3f  distinct-2 %.3f  (first %d dialogues: %.3f, %.3f)\n", r.Distinct1, r.Distinct2, corpus.Small, r.Distinct1Small, r.Distinct2Small)
		// The threshold in dialogues too: a sentence in exactly 2% of
		// them is not over it, though it shows as 2.0% below.
		fmt.Fprintf(w, "  sentences in more than %.0f%% of dialogues (more than %d of %d): %d\n",
			100*r.Threshold, int(r.Threshold*float64(s.Dialogues)), s.Dialogues, r.OverThreshold)
		if len(r.Top) > 0 {
			fmt.Fprintf(w, "  the %d most common, by share of dialogues:\n", len(r.Top))
		}
		for _, t := range r.Top {
			fmt.Fprintf(w, "  %5.1f%% (%d)  %s\n", 100*t.Share, int(math.Round(t.Share*float64(s.Dialogues))), t.Text)
		}
		fmt.Fprintf(w, "  malformed sentence uses: %d", r.Malformed)
		for _, k := range release.SortedCounts(r.MalformedKinds) {
			fmt.Fprintf(w, "  %s %d", k, r.MalformedKinds[k])
		}
		fmt.Fprintln(w)
		for _, t := range r.MalformedTop {
			fmt.Fprintf(w, "  %5.1f%%  %s\n", 100*t.Share, t.Text)
		}
	}
	c := s.Counts
	fmt.Fprintf(w, "\nsituations (dialogues): corrections %d  pushbacks %d  tool errors %d  transfers %d  recovery rows %d  forgotten ids %d  digressions %d  incomplete answers %d\n",
		c.Corrections, c.Pushbacks, c.ToolErrors, c.Transfers, c.Recovery, c.Forgotten, c.Digressions, c.Incomplete)
}
