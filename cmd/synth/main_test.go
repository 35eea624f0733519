package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/corpus"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(filepath.Dir(shared.dir))
	}
	os.Exit(code)
}

// run runs a synth command in this process, with no memory bound.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, args, stdout, stderr, nil)
}

func synth(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenFile(t, filepath.Join("testdata", name), got)
}

// goldenFile compares got with the file at path; -update writes it.
func goldenFile(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from what synth writes now (go test -update rewrites it):\n%s", path, got)
	}
}

func TestRunInspectStats(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rel")
	code, stdout, stderr := synth(t, "run", "-n", "30", "--seed", "3", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("run exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "30 verified") {
		t.Errorf("run summary: %s", stdout)
	}
	code, stdout, stderr = synth(t, "inspect", out)
	if code != 0 {
		t.Fatalf("inspect exit %d: %s", code, stderr)
	}
	golden(t, "inspect.golden", stdout)
	id := strings.Fields(stdout)[1]
	code, byID, _ := synth(t, "inspect", out, "--id", id)
	if code != 0 || byID != stdout {
		t.Errorf("inspect --id %s: exit %d", id, code)
	}
	code, stdout, _ = synth(t, "stats", out)
	if code != 0 || !strings.Contains(stdout, "verified 30") || !strings.Contains(stdout, "writes per task:") {
		t.Errorf("stats exit %d:\n%s", code, stdout)
	}
	code, stdout, _ = synth(t, "stats", out, "--json")
	if code != 0 || !strings.Contains(stdout, `"sft_rows": 30`) {
		t.Errorf("stats --json exit %d:\n%s", code, stdout)
	}
	code, stdout, _ = synth(t, "stats", out, "--language", "--sample", "20")
	if code != 0 || !strings.Contains(stdout, "language of 20 dialogues") || !strings.Contains(stdout, "distinct-2") || !strings.Contains(stdout, "situations (dialogues)") {
		t.Errorf("stats --language exit %d:\n%s", code, stdout)
	}
	code, stdout, _ = synth(t, "stats", out, "--language", "--json", "--sample", "0")
	var lang corpus.Summary
	if err := json.Unmarshal([]byte(stdout), &lang); code != 0 || err != nil || lang.Dialogues != 30 || lang.Roles[corpus.Customer].Sentences == 0 {
		t.Errorf("stats --language --json exit %d (%v): %s", code, err, stdout)
	}
	if code, _, stderr := synth(t, "stats", out, "--language", "--sample", "-1"); code == 0 || !strings.Contains(stderr, "--sample") {
		t.Errorf("stats --sample -1: exit %d: %s", code, stderr)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("n: [1, 2\n"), 0o644)
	unknown := filepath.Join(dir, "unknown.yaml")
	os.WriteFile(unknown, []byte("n: 5\nwirtes: 1-2\nredas: 2-3\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "Usage"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"run", "--bogus"}, 2, "unknown flag --bogus"},
		{[]string{"run", "-n", "0", "--out", filepath.Join(dir, "o")}, 1, "-n 0"},
		{[]string{"run", "--writes", "1-x", "--out", filepath.Join(dir, "o")}, 1, "--writes"},
		{[]string{"run", "--config", bad}, 1, bad},
		// Both misspellings at once, each with its line and the key meant.
		{[]string{"run", "--config", unknown}, 1, unknown + `:2: wirtes: unknown key "wirtes" (did you mean "writes"?)` + "\n  " + unknown + `:3: redas: unknown key "redas" (did you mean "reads"?)`},
		{[]string{"run", "--config", filepath.Join(dir, "missing.yaml")}, 1, "missing.yaml"},
		{[]string{"inspect", dir}, 1, "not a synth release"},
		{[]string{"stats"}, 2, "give the release folder"},
		{[]string{"domain", "show", "bank"}, 1, `unknown domain "bank"`},
	}
	for _, tc := range cases {
		code, _, stderr := synth(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("synth %v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

func TestConfigFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	out := filepath.Join(dir, "o")
	os.WriteFile(cfg, []byte("n: 7\nseed: 9\nwrites: 1-2\nreads: 3-4\nout: "+out+"\n"), 0o644)
	code, stdout, stderr := synth(t, "run", "--config", cfg, "-n", "4", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "4 blueprints") {
		t.Errorf("the -n flag must override the file: %s", stdout)
	}
	code, stdout, _ = synth(t, "stats", out, "--json")
	var st struct {
		Stats struct {
			Writes map[string]int `json:"writes_per_task"`
			Reads  map[string]int `json:"reads_per_write"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); code != 0 || err != nil {
		t.Fatalf("stats --json: exit %d, %v", code, err)
	}
	for k := range st.Stats.Writes {
		if k != "1" && k != "2" {
			t.Errorf("writes %s outside the file's range 1-2", k)
		}
	}
	for k := range st.Stats.Reads {
		if k != "3" && k != "4" {
			t.Errorf("reads %s outside the file's range 3-4", k)
		}
	}
}

func TestDomainCommands(t *testing.T) {
	code, stdout, _ := synth(t, "domain", "list")
	if code != 0 || strings.TrimSpace(stdout) != "airline\nretail" {
		t.Errorf("domain list: %d %q", code, stdout)
	}
	code, stdout, _ = synth(t, "domain", "show", "retail")
	if code != 0 || !strings.Contains(stdout, "cancel_pending_order") || !strings.Contains(stdout, "write") {
		t.Errorf("domain show: %d", code)
	}
}
