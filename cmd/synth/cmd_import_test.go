package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/synth-data/synth/record"
)

func TestImportOpenAPI(t *testing.T) {
	spec := filepath.Join("..", "..", "openapi", "testdata", "resilient.yaml")
	out := filepath.Join(t.TempDir(), "shop")
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"imports", []string{spec, "-o", out, "--seed", "3"}, 0, "13 tools (8 mapped to data, 5 unmapped", "warning: GET /categories/{id}"},
		{"flags first", []string{"-o", filepath.Join(t.TempDir(), "p"), "--include", "/products/**", spec}, 0, "7 tools", ""},
		{"existing folder", []string{spec, "-o", out}, 1, "", "not empty"},
		{"no -o", []string{spec}, 2, "", "-o DIR is required"},
		{"no spec", []string{"-o", filepath.Join(t.TempDir(), "q")}, 2, "", "give the spec (a YAML or JSON file): synth domain import-openapi SPEC -o DIR\nsee synth domain import-openapi --help"},
		{"bad max", []string{spec, "-o", filepath.Join(t.TempDir(), "r"), "--max-operations", "0"}, 2, "", "--max-operations 0"},
		{"too many", []string{spec, "-o", filepath.Join(t.TempDir(), "s"), "--max-operations", "5"}, 1, "", "13 operations, more than --max-operations 5"},
		{"swagger", []string{filepath.Join("..", "..", "openapi", "testdata", "swagger2.yaml"), "-o", filepath.Join(t.TempDir(), "u")}, 1, "", "swagger: 2.0 (line 1) is not supported"},
		{"spec size limit", []string{spec, "-o", filepath.Join(t.TempDir(), "v"), "--max-spec-bytes", "2KiB"}, 1, "", "spec too large: more than 2KiB read (the spec and the files its $refs name, together); raise the limit with --max-spec-bytes"},
		{"bad size", []string{spec, "-o", filepath.Join(t.TempDir(), "w"), "--max-spec-bytes", "lots"}, 2, "", `"lots" is not a size`},
		{"multi-file", []string{filepath.Join("..", "..", "openapi", "testdata", "multifile", "ok", "api.yaml"), "-o", filepath.Join(t.TempDir(), "x")}, 0, "4 tools (4 mapped to data, 0 unmapped; see IMPORT.md), 1 collection: patients; who talks to the agent: employee", ""},
		{"missing files", []string{filepath.Join("..", "..", "openapi", "testdata", "multifile", "missing", "api.yaml"), "-o", filepath.Join(t.TempDir(), "y")}, 1, "", "operations/list-patients.yaml is missing (named at line 7)"},
		{"missing files allowed", []string{filepath.Join("..", "..", "openapi", "testdata", "multifile", "missing", "api.yaml"), "-o", filepath.Join(t.TempDir(), "z"), "--allow-missing-files"}, 0, "3 tools", "warning: file operations/list-patients.yaml is missing"},
		{"folder as spec", []string{filepath.Join("..", "..", "openapi", "testdata", "multifile", "ok"), "-o", filepath.Join(t.TempDir(), "f")}, 1, "", "is a folder: give the spec's root file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"domain", "import-openapi"}, c.args...), &stdout, &stderr)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), c.stdout) {
				t.Errorf("stdout %q lacks %q", stdout.String(), c.stdout)
			}
			if !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), c.stderr)
			}
		})
	}
	for _, f := range []string{"domain.yaml", "tools.json", "handlers.star", "db.json", "policy.md", "IMPORT.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("pack file %s: %v", f, err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"domain", "validate", out}, &stdout, &stderr); code != 0 {
		t.Errorf("synth domain validate on the imported pack: exit %d: %s%s", code, stdout.String(), stderr.String())
	}
}

// A device (/dev/zero) is refused before it is read; an endless pipe
// stops at the size limit with a message naming it and the flag that
// raises it.
func TestImportEndlessInput(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		zeros := make([]byte, 64<<10)
		for {
			if _, err := w.Write(zeros); err != nil {
				w.Close()
				return
			}
		}
	}()
	endless := fmt.Sprintf("/proc/self/fd/%d", r.Fd())
	if _, err := os.Stat(endless); err != nil {
		t.Skipf("no /proc/self/fd here: %v", err)
	}
	for spec, want := range map[string]string{
		"/dev/zero": "/dev/zero is not a regular file or a pipe (a device)",
		endless:     endless + ": spec too large: more than 1MiB read",
	} {
		out := filepath.Join(t.TempDir(), "p")
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"domain", "import-openapi", spec, "-o", out, "--max-spec-bytes", "1MiB"}, &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), want) {
			t.Errorf("%s: exit %d: %s", spec, code, stderr.String())
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s was written", out)
		}
	}
}

// Ctrl-C (a cancelled context) stops an import, says so, writes nothing.
func TestImportInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "p")
	var stdout, stderr bytes.Buffer
	spec := filepath.Join("..", "..", "openapi", "testdata", "resilient.yaml")
	code := run(ctx, []string{"domain", "import-openapi", spec, "-o", out}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "interrupted; nothing was written") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was written", out)
	}
}

// FuzzByteFlag: any text is a size or an error, never a panic; a size
// is positive and reads back as itself.
func FuzzByteFlag(f *testing.F) {
	for _, s := range []string{"32MiB", "1", "0", "-5", "1.5GB", "9223372036854775807", "8589934592GiB", " 64 kib ", "MiB", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b byteFlag
		if err := b.Set(s); err != nil {
			return
		}
		if b <= 0 {
			t.Fatalf("%q is %d bytes", s, b)
		}
		var again byteFlag
		if err := again.Set(b.String()); err != nil || again != b {
			t.Fatalf("%q → %s → %d, %v", s, b.String(), again, err)
		}
	})
}

// TestImportedToolErrors runs a pack imported from a spec whose create
// takes its key from the client (a label's name) with every task drawn
// for a tool error: some tasks hold the tool_error situation, their
// dialogues keep the failed create and the agent's relay of its error,
// and the release validates on its own.
func TestImportedToolErrors(t *testing.T) {
	pack := filepath.Join(t.TempDir(), "labels")
	if code, _, stderr := synth(t, "domain", "import-openapi", filepath.Join("..", "..", "openapi", "testdata", "writes", "keyed-create.yaml"), "-o", pack); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := synth(t, "run", "--domain", pack, "-n", "24", "--seed", "21", "--tool-errors", "1", "--workers", "2", "--out", out); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := synth(t, "validate", out); code != 0 {
		t.Fatalf("validate: exit %d: %s%s", code, stdout, stderr)
	}
	code, stdout, stderr := synth(t, "stats", "--json", out)
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, stderr)
	}
	var st struct {
		Stats struct {
			Situations map[string]int `json:"situations"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("stats --json: %v: %s", err, stdout)
	}
	if st.Stats.Situations["tool_error"] == 0 {
		t.Fatalf("no tool_error task in 24 with --tool-errors 1: %v", st.Stats.Situations)
	}
	id := firstFailingSlots(t, out)
	code, stdout, stderr = synth(t, "inspect", "--id", id, "--width", "100000", out)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, stderr)
	}
	relay := regexp.MustCompile(`(?s)TOOL createLabel \[\w+\]\s+Error: a label with name (\S+) already exists.*?AGENT\s+[^\n]*a label with name (\S+) already exists`)
	if m := relay.FindStringSubmatch(stdout); m == nil || m[1] != m[2] {
		t.Errorf("%s: no failed createLabel whose error the agent relays in:\n%s", id, stdout)
	}
}

// firstFailingSlots is the id of the first blueprint of a release's
// train split whose customer first states a value the write fails on.
func firstFailingSlots(t *testing.T, out string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "blueprints", "train-00000-of-00001.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(zr)
	for {
		var bp record.Blueprint
		if err := dec.Decode(&bp); err != nil {
			t.Fatalf("no blueprint with failing_slots in the train split: %v", err)
		}
		for _, g := range bp.Goals {
			if len(g.FailingSlots) > 0 {
				return bp.ID
			}
		}
	}
}

// TestCardListsEveryUnusedWrite: a write the generator can build tasks
// for but that no task of the release uses (createProduct needs no read,
// outside the default --reads 2-7, as museum's createSpecialEvent does)
// is listed in the manifest and the card with why, beside the writes
// that cannot be used at all.
func TestCardListsEveryUnusedWrite(t *testing.T) {
	root := t.TempDir()
	pack, rel := filepath.Join(root, "shop"), filepath.Join(root, "rel")
	if code, _, stderr := synth(t, "domain", "import-openapi", filepath.Join("..", "..", "openapi", "testdata", "resilient.yaml"), "-o", pack); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if code, _, stderr := synth(t, "run", "--domain", pack, "-n", "40", "--quiet", "--out", rel); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(rel, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Unused map[string]string `json:"unused_writes"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	want := "its tasks need 0 reads, outside --reads 2-7: give a range that holds it to cover it"
	if m.Unused["createProduct"] != want || m.Unused["plantTree"] == "" {
		t.Errorf("unused_writes %v, want createProduct: %q and plantTree", m.Unused, want)
	}
	card, err := os.ReadFile(filepath.Join(rel, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(card), "| `createProduct` | "+want+" |") {
		t.Error("the card does not list createProduct")
	}
}
