package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/synth-data/synth/corpus"
	"github.com/synth-data/synth/internal/termtext"
	"github.com/synth-data/synth/release"
	"github.com/synth-data/synth/verify"
)

func cmdStats(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	language := fs.Bool("language", false, "measure the dialogues' language: repeated sentences, distinct-n per role, situation counts")
	sample := fs.Int("sample", 1000, "with --language: dialogues measured (train, validation, then test; 0: all)")
	top := fs.Int("top", 5, "with --language: most common sentences shown per role")
	dir, err := parseWithDir(fs, args)
	if err != nil {
		return err
	}
	m, err := release.ReadManifest(dir)
	if err != nil {
		return fmt.Errorf("%s is not a synth release (no readable manifest.json): %w", dir, err)
	}
	// The figures are the manifest's: they hold only while the files it
	// lists are there as written.
	if err := m.CheckFiles(dir, ""); err != nil {
		return err
	}
	if *language {
		if *sample < 0 || *top < 0 {
			return errors.New("--sample and --top take 0 or more")
		}
		meter, err := corpus.Measure(ctx, dir, m, *sample)
		if err != nil {
			return fmt.Errorf("stats --language %s: %w", dir, err)
		}
		sum := meter.Summary(*top)
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(sum)
		}
		printLanguage(termtext.Writer(stdout), dir, sum)
		return nil
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"counts": m.Counts, "checks": m.Checks, "failures": m.Failures, "stats": m.Stats, "dpo": m.DPO})
	}
	// Names and counts come from the release's manifest.
	stdout = termtext.Writer(stdout)
	c := m.Counts
	fmt.Fprintf(stdout, "release %s  (synth %s, domain %s %s, seed %d)\n\n", dir, m.SynthVersion, m.Domain.Name, m.Domain.Version, m.Seed)
	fmt.Fprintf(stdout, "blueprints %d  simulated %d  verified %d  rejected %d\n", c.Blueprints, c.Simulated, c.Verified, c.Rejected)
	fmt.Fprintf(stdout, "SFT rows %d  (train %d, validation %d, test %d)\n\n", c.SFTRows, c.BySplit["train"], c.BySplit["validation"], c.BySplit["test"])
	fmt.Fprintln(stdout, "checks:")
	names := make([]string, 0, len(m.Checks))
	for n := range m.Checks {
		names = append(names, n)
	}
	sort.Strings(names)
	// The policy's rules (rule:KIND:NAME) after the checks every
	// dialogue gets, each column as wide as its longest name.
	width := 16
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, rules := range []bool{false, true} {
		if rules {
			fmt.Fprintln(stdout, "policy rules:")
		}
		for _, n := range names {
			if strings.HasPrefix(n, verify.RulePrefix) == rules {
				fmt.Fprintf(stdout, "  %-*s %6.2f%%  (%d failed)\n", width, n, 100*m.Checks[n].Rate, m.Checks[n].Failed)
			}
		}
	}
	s := m.Stats
	if s == nil {
		return nil
	}
	fmt.Fprintln(stdout)
	for _, row := range []struct {
		name string
		v    release.Summary
	}{{"messages/dialogue", s.Messages}, {"user turns/dialogue", s.UserTurns}, {"tool calls/dialogue", s.ToolCalls}, {"read calls/dialogue", s.ReadCalls}} {
		fmt.Fprintf(stdout, "%-22s mean %6.2f  min %3d  max %3d\n", row.name, row.v.Mean, row.v.Min, row.v.Max)
	}
	fmt.Fprintf(stdout, "distinct first user messages     %.1f%%\n", 100*s.DistinctFirst)
	fmt.Fprintf(stdout, "distinct user-message sequences  %.1f%%\n", 100*s.DistinctUsers)
	for _, role := range []string{"user", "assistant"} {
		if d := s.DistinctN[role]; d != nil {
			fmt.Fprintf(stdout, "%-9s text distinct-1 %.4f  distinct-2 %.4f\n", role, d["distinct_1"], d["distinct_2"])
		}
	}
	fmt.Fprintf(stdout, "tool-sequence entropy            %.2f bits\n", s.ToolSequenceEntropy)
	var chain, classes map[string]int
	if cr := s.Credit; cr != nil && cr.Rows > 0 {
		chain, classes = cr.ChainLength, cr.Classes
		fmt.Fprintf(stdout, "chain length (ground-truth actions) mean %.2f\n", float64(cr.ChainSteps)/float64(cr.Rows))
		fmt.Fprintf(stdout, "label coverage (V_d)             %.1f%% of chain steps; %d of %d rows fully covered\n", 100*cr.Coverage, cr.FullyCovered, cr.Rows)
		for _, e := range slices.Sorted(maps.Keys(cr.Gold)) {
			g := cr.Gold[e]
			fmt.Fprintf(stdout, "gold action recall (%s)%s %.1f%%  (%d of %d assistant turns)\n", e, strings.Repeat(" ", max(1, 12-len(e))), 100*g.Recall, g.Matched, g.Turns)
		}
	}
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
		fmt.Fprintf(stdout, "\n%s:\n", h.name)
		printHist(stdout, h.m, h.over)
	}
	if m.DPO != nil {
		fmt.Fprintf(stdout, "\nDPO pairs %d from %d flawed attempts (no opportunity %d, verified anyway %d, other failure %d); failure types:\n",
			m.DPO.Pairs, m.DPO.Attempts, m.DPO.NotFired, m.DPO.NoFailure, m.DPO.OtherReason)
		printHist(stdout, m.DPO.ByFailure, 0)
	}
	return nil
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
	for _, k := range release.SortedCounts(m) {
		share := float64(m[k]) / float64(total)
		fmt.Fprintf(w, "  %-22s %6d  %5.1f%%  %s\n", k, m[k], 100*share, strings.Repeat("█", int(share*40+0.5)))
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
		fmt.Fprintf(w, "  sentences in more than %.0f%% of dialogues: %d\n", 100*r.Threshold, r.OverThreshold)
		for _, t := range r.Top {
			fmt.Fprintf(w, "  %5.1f%%  %s\n", 100*t.Share, t.Text)
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
