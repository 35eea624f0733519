package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/termtext"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
)

// errFound stops a scan once the wanted row is printed.
var errFound = errors.New("found")

type inspectOpts struct {
	id, split string
	width     int
	dpo       bool
}

func inspectVerb(o *inspectOpts) *verb {
	v := newVerb("inspect", "DIR", "the release folder", 1, 1, "show a dialogue or a DPO pair in the terminal",
		"A row's credit labels are shown under its header and under each assistant turn. Control characters in the text are shown escaped.")
	v.fs.StringVar(&o.id, "id", "", "row or blueprint `ID` to show (default: the first row)")
	v.fs.StringVar(&o.split, "split", "", "only look in this `SPLIT` (train, validation or test)")
	v.fs.IntVar(&o.width, "width", 100, "wrap text at this many columns")
	v.fs.BoolVar(&o.dpo, "dpo", false, "show a DPO pair (prompt, then chosen and rejected side by side)")
	return v
}

func cmdInspect(_ context.Context, e env, args []string) error {
	var o inspectOpts
	pos, err := inspectVerb(&o).parse(args, e.stdout)
	if err != nil {
		return err
	}
	// Rows come from the release: their text is shown, never obeyed.
	stdout := termtext.Writer(e.stdout)
	dir := pos[0]
	m, err := release.ReadManifest(dir)
	if err != nil {
		return fmt.Errorf("%s is not a synth release (no readable manifest.json): %w", dir, err)
	}
	if err := hasSplit(dir, m, o.split); err != nil {
		return err
	}
	config := "sft/"
	if o.dpo {
		config = "dpo/"
	}
	// The first row shown must not hide a damaged shard behind it.
	if err := m.CheckFiles(dir, config); err != nil {
		return err
	}
	var paths []string
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, config) && (o.split == "" || f.Split == o.split) {
			paths = append(paths, filepath.Join(dir, f.Path))
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		var err error
		if o.dpo {
			err = export.ScanDPO(p, func(r export.DPORow) error {
				if o.id != "" && r.ID != o.id && r.BlueprintID != o.id {
					return nil
				}
				printPair(stdout, r, o.width)
				return errFound
			})
		} else {
			err = export.ScanSFT(p, func(r export.SFTRow) error {
				if o.id != "" && r.ID != o.id && r.BlueprintID != o.id {
					return nil
				}
				printRow(stdout, r, o.width)
				return errFound
			})
		}
		if errors.Is(err, errFound) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	if o.id != "" && o.split != "" {
		return fmt.Errorf("no row with id %q in the %s split of %s; leave out --split to look in all", o.id, o.split, dir)
	}
	if o.id != "" {
		return fmt.Errorf("no row with id %q in %s; list ids with: duckdb -c \"select id from '%s/sft/*.parquet'\"", o.id, dir, dir)
	}
	if o.dpo {
		return fmt.Errorf("%s has no DPO pairs (run with --dpo)", dir)
	}
	return fmt.Errorf("%s has no SFT rows", dir)
}

// printPair shows the shared prompt, then the chosen and rejected
// continuations in two columns.
func printPair(w io.Writer, r export.DPORow, width int) {
	fmt.Fprintf(w, "pair %s  blueprint %s  failure %s  diverges after user turn %d\n", r.ID, r.BlueprintID, r.Failure, r.DivergenceTurn)
	fmt.Fprintln(w, strings.Repeat("─", min(width, 100)))
	printMessages(w, r.Prompt, width)
	col := (width - 3) / 2
	left := strings.Split(renderMessages(r.Chosen, col), "\n")
	right := strings.Split(renderMessages(r.Rejected, col), "\n")
	fmt.Fprintf(w, "%s\n%-*s │ %s\n%s\n", strings.Repeat("─", width), col, "CHOSEN (verified)", "REJECTED ("+r.Failure+")", strings.Repeat("─", width))
	for i := 0; i < max(len(left), len(right)); i++ {
		var l, rr string
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			rr = right[i]
		}
		fmt.Fprintf(w, "%-*s │ %s\n", col, clip(l, col), clip(rr, col))
	}
}

func renderMessages(msgs []record.Message, width int) string {
	var b strings.Builder
	printMessages(&b, msgs, width)
	return strings.TrimRight(b.String(), "\n")
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// hasSplit refuses a --split the release does not have, naming those
// it has.
func hasSplit(dir string, m *release.Manifest, split string) error {
	if split == "" {
		return nil
	}
	present := map[string]bool{}
	for _, f := range m.Files {
		present[f.Split] = f.Split != ""
	}
	if present[split] {
		return nil
	}
	var have []string
	for _, s := range append(slices.Clone(release.Splits), slices.Sorted(maps.Keys(present))...) {
		if present[s] && !slices.Contains(have, s) {
			have = append(have, s)
		}
	}
	return fmt.Errorf("--split %s: %s has no split %q; its splits are %s", split, dir, split, strings.Join(have, ", "))
}

func printRow(w io.Writer, r export.SFTRow, width int) {
	fmt.Fprintf(w, "id %s  blueprint %s  domain %s  engine %s\n", r.ID, r.BlueprintID, r.Domain, r.Engine)
	fmt.Fprintf(w, "behaviour %s  writes %d  reads %d  evidence per write %v\n", r.Behavior, r.NWrites, r.NReads, r.Evidence)
	var l *credit.Labels
	if len(r.Labels) > 0 {
		l = new(credit.Labels)
		if err := json.Unmarshal(r.Labels, l); err != nil {
			// A row of format 1-3 has none; a broken value is validate's to report.
			l = nil
		}
	}
	if l != nil {
		m, n := credit.GoldRecall(*l)
		fmt.Fprintf(w, "labels: chain %d  progress %d  coverage %s  gold %d/%d turns  pivotal %s  correcting %s\n",
			l.ChainLength, l.Progress, strconv.FormatFloat(l.Coverage, 'f', -1, 64), m, n, messageRef(l.Pivotal), messageRef(l.Correcting))
	}
	fmt.Fprintln(w, strings.Repeat("─", min(width, 100)))
	printLabelled(w, r.Messages, width, l)
}

// messageRef names a message index, or none for -1.
func messageRef(i int) string {
	if i < 0 {
		return "none"
	}
	return "[" + strconv.Itoa(i) + "]"
}

func printMessages(w io.Writer, msgs []record.Message, width int) {
	printLabelled(w, msgs, width, nil)
}

// turnLabel is one assistant turn's labels in a line: its class and
// gold (marked where they differ), on or off the chain, the progress.
func turnLabel(t credit.Turn, l *credit.Labels) string {
	s := "class " + t.Class + "  gold " + t.Gold
	if t.Class != t.Gold {
		s = "class " + t.Class + " ≠ gold " + t.Gold
	}
	if t.OnChain {
		s += "  on chain"
	} else {
		s += "  off chain"
	}
	s += fmt.Sprintf("  progress %d/%d", t.Progress, l.ChainLength)
	switch t.Message {
	case l.Pivotal:
		s += "  ← pivotal"
	case l.Correcting:
		s += "  ← correcting"
	}
	return "    ⟨" + s + "⟩"
}

// printLabelled prints messages, each assistant one followed by its
// labels when l has them.
func printLabelled(w io.Writer, msgs []record.Message, width int, l *credit.Labels) {
	turns := map[int]credit.Turn{}
	if l != nil {
		for _, t := range l.Turns {
			turns[t.Message] = t
		}
	}
	for i, m := range msgs {
		switch m.Role {
		case "system":
			fmt.Fprintf(w, "[%d] SYSTEM  (policy, %d characters)\n", i, len(m.Content))
		case "user":
			fmt.Fprintf(w, "[%d] USER\n%s\n", i, wrap(m.Content, width, "    "))
		case "assistant":
			if m.ReasoningContent != "" {
				fmt.Fprintf(w, "[%d] AGENT (thinking)\n%s\n", i, wrap(m.ReasoningContent, width, "    "))
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(w, "[%d] AGENT → %s(%s)  [%s]\n", i, c.Function.Name, c.Function.Arguments, c.ID)
			}
			if m.Content != "" {
				fmt.Fprintf(w, "[%d] AGENT\n%s\n", i, wrap(m.Content, width, "    "))
			}
			if t, ok := turns[i]; ok {
				fmt.Fprintln(w, turnLabel(t, l))
			}
		case "tool":
			out := m.Content
			if len(out) > 300 {
				out = out[:300] + fmt.Sprintf("… (%d characters)", len(m.Content))
			}
			fmt.Fprintf(w, "[%d] TOOL %s [%s]\n%s\n", i, m.Name, m.ToolCallID, wrap(out, width, "    "))
		}
	}
}

func wrap(s string, width int, indent string) string {
	var lines []string
	line := indent
	for _, word := range strings.Fields(s) {
		if len(line)+len(word)+1 > width && strings.TrimSpace(line) != "" {
			lines = append(lines, line)
			line = indent
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += word
	}
	if strings.TrimSpace(line) != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
