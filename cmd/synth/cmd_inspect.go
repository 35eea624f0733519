package main

import (
	"encoding/json"
	"errors"
	"flag"
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
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
)

// errFound stops a scan once the wanted row is printed.
var errFound = errors.New("found")

func cmdInspect(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	id := fs.String("id", "", "row or blueprint id to show (default: the first row)")
	split := fs.String("split", "", "only look in this split")
	width := fs.Int("width", 100, "wrap text at this many columns")
	dpo := fs.Bool("dpo", false, "show a DPO pair (prompt, then chosen and rejected side by side)")
	dir, err := parseWithDir(fs, args)
	if err != nil {
		return err
	}
	m, err := release.ReadManifest(dir)
	if err != nil {
		return fmt.Errorf("%s is not a synth release (no readable manifest.json): %w", dir, err)
	}
	config := "sft/"
	if *dpo {
		config = "dpo/"
	}
	if err := checkSplit(m, *split); err != nil {
		return err
	}
	// The first row shown must not hide a damaged shard behind it.
	if err := m.CheckFiles(dir, config); err != nil {
		return err
	}
	var paths []string
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, config) && (*split == "" || f.Split == *split) {
			paths = append(paths, filepath.Join(dir, f.Path))
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		var err error
		if *dpo {
			err = export.ScanDPO(p, func(r export.DPORow) error {
				if *id != "" && r.ID != *id && r.BlueprintID != *id {
					return nil
				}
				printPair(stdout, r, *width)
				return errFound
			})
		} else {
			err = export.ScanSFT(p, func(r export.SFTRow) error {
				if *id != "" && r.ID != *id && r.BlueprintID != *id {
					return nil
				}
				printRow(stdout, r, *width)
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
	if *id != "" {
		return fmt.Errorf("no row with id %q in %s; list ids with: duckdb -c \"select id from '%s/sft/*.parquet'\"", *id, dir, dir)
	}
	if *dpo {
		return fmt.Errorf("%s has no DPO pairs (run with --dpo)", dir)
	}
	return fmt.Errorf("%s has no SFT rows", dir)
}

// checkSplit refuses a --split the release has none of: it is a name
// in the manifest, never a path (../../etc).
func checkSplit(m *release.Manifest, split string) error {
	if split == "" {
		return nil
	}
	have := map[string]bool{}
	for _, f := range m.Files {
		if f.Split != "" {
			have[f.Split] = true
		}
	}
	if have[split] {
		return nil
	}
	names := slices.Sorted(maps.Keys(have))
	return fmt.Errorf("--split %q is not a split of this release (it has %s)", split, strings.Join(names, ", "))
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

// parseWithDir parses flags that may come before or after the DIR argument.
func parseWithDir(fs *flag.FlagSet, args []string) (string, error) {
	var dir string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		dir, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", errUsage
		}
		return "", errUsage
	}
	if dir == "" && fs.NArg() > 0 {
		dir = fs.Arg(0)
	}
	if dir == "" {
		return "", fmt.Errorf("give the release directory: synth %s DIR", fs.Name())
	}
	return dir, nil
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
