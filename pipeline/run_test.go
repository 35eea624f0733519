package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/testtree"
	"github.com/synth-data/synth/record"
)

func smallConfig(t *testing.T, n int) Config {
	t.Helper()
	cfg := Defaults()
	cfg.N = n
	cfg.Out = filepath.Join(t.TempDir(), "out")
	return cfg
}

func TestRunDeterministicAcrossWorkers(t *testing.T) {
	var trees []map[string]string
	for _, workers := range []int{1, 8} {
		cfg := smallConfig(t, 300/shrink())
		cfg.Workers = workers
		if _, err := Run(context.Background(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, testtree.Hashes(t, cfg.Out))
	}
	if len(trees[0]) == 0 {
		t.Fatal("empty release")
	}
	for name, h := range trees[0] {
		if trees[1][name] != h {
			t.Errorf("%s differs between --workers 1 and --workers 8", name)
		}
	}
	if len(trees[0]) != len(trees[1]) {
		t.Errorf("file sets differ: %d vs %d files", len(trees[0]), len(trees[1]))
	}
}

func TestRunRelease(t *testing.T) {
	cfg := smallConfig(t, 200)
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.Counts.Verified != 200 || m.Counts.Rejected != 0 {
		t.Fatalf("oracle must pass every blueprint: %+v (failures %v)", m.Counts, m.Failures)
	}
	for name, c := range m.Checks {
		if c.Rate != 1 || c.Passed != 200 {
			t.Errorf("check %s: %+v", name, c)
		}
	}
	// Every file listed with its real hash; nothing else in the release.
	onDisk := testtree.Hashes(t, cfg.Out)
	delete(onDisk, "manifest.json")
	listed := map[string]string{}
	var rows int64
	for _, f := range m.Files {
		listed[filepath.FromSlash(f.Path)] = f.SHA256
		if strings.HasPrefix(f.Path, "sft/") {
			rows += f.Rows
			got, err := export.ReadSFT(filepath.Join(cfg.Out, f.Path))
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(got)) != f.Rows {
				t.Errorf("%s: manifest says %d rows, file has %d", f.Path, f.Rows, len(got))
			}
			for _, r := range got {
				if r.Messages[0].Role != "system" || r.Tools == "" || int(r.NWrites) != len(r.Evidence) {
					t.Fatalf("%s: malformed row %s", f.Path, r.ID)
				}
			}
		}
	}
	if rows != 200 {
		t.Errorf("SFT rows %d, want 200", rows)
	}
	for name, h := range onDisk {
		if listed[name] != h {
			t.Errorf("%s: on disk %s, manifest %s", name, h, listed[name])
		}
	}
	for name := range listed {
		if _, ok := onDisk[name]; !ok {
			t.Errorf("manifest lists %s, which is missing", name)
		}
	}
	card, err := os.ReadFile(filepath.Join(cfg.Out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"configs:\n- config_name: sft", "path: sft/train-*.parquet", "license: other", "## Loading"} {
		if !bytes.Contains(card, []byte(want)) {
			t.Errorf("dataset card lacks %q", want)
		}
	}
	// A rerun of the same config finds the release and changes nothing.
	before := testtree.Hashes(t, cfg.Out)
	res, err = Run(context.Background(), cfg, nil)
	if err != nil || !res.Existing {
		t.Fatalf("rerun: existing=%v err=%v", res != nil && res.Existing, err)
	}
	after := testtree.Hashes(t, cfg.Out)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("rerun changed %s", k)
		}
	}
}

func TestRunBadInput(t *testing.T) {
	notEmpty := t.TempDir()
	if err := os.WriteFile(filepath.Join(notEmpty, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	aFile := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(aFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"unknown domain", func(c *Config) { c.Domain = "bank" }, `unknown domain "bank"`},
		{"n zero", func(c *Config) { c.N = 0 }, "-n 0"},
		{"n negative", func(c *Config) { c.N = -5 }, "-n -5"},
		{"malformed writes", func(c *Config) { c.Writes = "two" }, "--writes"},
		{"inverted reads", func(c *Config) { c.Reads = "5-2" }, "--reads"},
		{"unreachable reads", func(c *Config) { c.Reads = "50-60" }, "--reads 50-60"},
		{"too many writes", func(c *Config) { c.Writes = "16-16" }, "--writes 16"},
		{"weights mismatch", func(c *Config) { c.Writes = "1-2"; c.WriteWeights = []float64{1} }, "--writes"},
		{"unknown behaviour", func(c *Config) { c.Behaviors = []string{"grumpy"} }, `"grumpy"`},
		{"engine", func(c *Config) { c.Engine = "gpt" }, "--engine"},
		{"not our dir", func(c *Config) { c.Out = notEmpty }, "holds no synth release"},
		{"out under a file", func(c *Config) { c.Out = filepath.Join(aFile, "x") }, "--out"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		cases = append(cases, struct {
			name string
			edit func(*Config)
			want string
		}{"unwritable out", func(c *Config) { c.Out = filepath.Join(readOnly, "x") }, "--out"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := smallConfig(t, 5)
			tc.edit(&cfg)
			_, err := Run(context.Background(), cfg, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(notEmpty, "notes.txt")); string(b) != "mine" {
		t.Error("a foreign out dir was touched")
	}
}

func TestRunRefusesOtherConfig(t *testing.T) {
	cfg := smallConfig(t, 20)
	if _, err := Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	before := testtree.Hashes(t, cfg.Out)
	other := cfg
	other.Seed = 2
	other.Reads = "3-5"
	_, err := Run(context.Background(), other, nil)
	if err == nil || !strings.Contains(err.Error(), "seed: 1 in the release, 2 now") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("error %v should show the differing keys and the fix", err)
	}
	after := testtree.Hashes(t, cfg.Out)
	if len(before) != len(after) {
		t.Fatal("refused run changed the release")
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("refused run changed %s", k)
		}
	}
	other.Force = true
	res, err := Run(context.Background(), other, nil)
	if err != nil || res.Manifest.Seed != 2 {
		t.Fatalf("--force: %v", err)
	}
}

func TestRunCancelledLeavesNoRelease(t *testing.T) {
	cfg := smallConfig(t, 100000)
	ctx, cancel := context.WithCancel(context.Background())
	prog := progressFunc(func(done, _, _ int) {
		if done == 50 {
			cancel()
		}
	})
	_, err := Run(ctx, cfg, prog)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("want an interrupted error, got %v", err)
	}
	var visible []string
	entries, _ := os.ReadDir(cfg.Out)
	for _, e := range entries {
		visible = append(visible, e.Name())
	}
	sort.Strings(visible)
	if _, err := os.Stat(filepath.Join(cfg.Out, "manifest.json")); err == nil {
		t.Fatalf("a cancelled run left a manifest: %v", visible)
	}
	matches, _ := filepath.Glob(filepath.Join(cfg.Out, "sft", "*.parquet"))
	if len(matches) > 0 {
		t.Fatalf("a cancelled run published %v", matches)
	}
}

type progressFunc func(done, accepted, total int)

func (f progressFunc) Start(total, done int) {}
func (f progressFunc) Update(s Snapshot)     { f(s.Written, s.Verified, 0) }

// TestRecoveryRowsLabelled: a recovery dialogue reaches the SFT Parquet
// labelled kind "recovery", and the oracle's rows carry no kind; its
// mistake, from the flawed agent's first turn that is not the oracle's
// to the proposal the customer turned down, weighs 0 and no other
// message of any row carries a weight.
func TestRecoveryRowsLabelled(t *testing.T) {
	cfg := Defaults()
	cfg.N = 120
	cfg.SetOption("recovery_share", 0.5)
	cfg.Out = filepath.Join(t.TempDir(), "out")
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, r := range readSFT(t, cfg.Out, res.Manifest) {
		kinds[r.Kind]++
		if r.Kind == record.KindRecovery && !hasCorrection(r.Messages) {
			t.Errorf("%s: a recovery row in which the customer never turns a proposal down", r.ID)
		}
		var weighed []int
		for i, m := range r.Messages {
			if m.Weight != nil {
				if *m.Weight != 0 || m.Role != "assistant" {
					t.Errorf("%s message %d: %s with weight %d", r.ID, i, m.Role, *m.Weight)
				}
				weighed = append(weighed, i)
			}
		}
		var l credit.Labels
		if err := json.Unmarshal(r.Labels, &l); err != nil {
			t.Fatal(err)
		}
		switch {
		case r.Kind != record.KindRecovery && weighed != nil:
			t.Errorf("%s: an oracle row weighs messages %v", r.ID, weighed)
		case r.Kind == record.KindRecovery && (len(weighed) == 0 || !slices.Equal(weighed, credit.Mistakes(l)) || weighed[0] != l.MistakeFrom || l.MistakeFrom > l.Pivotal):
			t.Errorf("%s: weight 0 on messages %v, want the mistake from mistake_from %d (pivotal %d) to correcting %d", r.ID, weighed, l.MistakeFrom, l.Pivotal, l.Correcting)
		case r.Kind == record.KindRecovery && (l.Pivotal+1 >= len(r.Messages) || r.Messages[l.Pivotal+1].Role != "user"):
			t.Errorf("%s: the weighed turn %d is not the proposal the customer answers", r.ID, l.Pivotal)
		}
	}
	if kinds[record.KindRecovery] == 0 || kinds[""] == 0 || len(kinds) != 2 {
		t.Fatalf("rows by kind %v: want oracle rows and recovery rows only", kinds)
	}
}

// hasCorrection reports whether the customer turns the agent down before
// the closing: "Wait, no, that's the wrong order!", "No, the zip is …".
func hasCorrection(msgs []record.Message) bool {
	last := len(msgs) - 1
	for last > 0 && msgs[last].Role != "user" {
		last--
	}
	for i := 1; i < last; i++ {
		if msgs[i].Role == "user" && msgs[i-1].Role == "assistant" && msgs[i-1].Content != "" && turnDown.MatchString(msgs[i].Content) {
			return true
		}
	}
	return false
}

var turnDown = regexp.MustCompile(`(?i)\b(no|nope|wrong|not)\b`)
