package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/synth-data/synth/verify"
)

// verifyOut is synth verify's stdout: the lines by id and the summary.
type verifyOut struct {
	lines   map[string]verifyLine
	order   []string
	summary struct {
		Dialogues, Passed, Failed, Malformed int
		Checks                               map[string]struct{ Passed, Failed int }
	}
	kept struct {
		Dialogues int            `json:"dialogues"`
		NotKept   map[string]int `json:"not_kept"`
	}
}

func parseVerify(t *testing.T, stdout string) verifyOut {
	t.Helper()
	out := verifyOut{lines: map[string]verifyLine{}}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &probe); err != nil {
			t.Fatalf("verify printed a line that is not JSON: %q", sc.Text())
		}
		if s, ok := probe["summary"]; ok {
			if err := json.Unmarshal(s, &out.summary); err != nil {
				t.Fatal(err)
			}
			if k, ok := probe["kept"]; ok {
				if err := json.Unmarshal(k, &out.kept); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		var l verifyLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out.lines[l.ID] = l
		out.order = append(out.order, l.ID)
	}
	return out
}

// ownDialogues runs synth and writes its rows as synth verify's JSONL
// input: messages, and the ground truth of each row's blueprint. It
// also returns the release it ran.
func ownDialogues(t *testing.T, n int) ([]map[string]any, string) {
	t.Helper()
	dir := t.TempDir()
	rel := filepath.Join(dir, "rel")
	if code, stdout, stderr := synth(t, "run", "-n", strconv.Itoa(n), "--seed", "4", "--out", rel, "--quiet"); code != 0 {
		t.Fatalf("run: %d\n%s%s", code, stdout, stderr)
	}
	exported := filepath.Join(dir, "jsonl")
	if code, stdout, stderr := synth(t, "export", rel, "--format", "jsonl", "-o", exported); code != 0 {
		t.Fatalf("export: %d\n%s%s", code, stdout, stderr)
	}
	truth := map[string]map[string]any{}
	files, _ := filepath.Glob(filepath.Join(rel, "blueprints", "*.jsonl.gz"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range gunzipLines(t, raw) {
			var bp struct {
				ID      string `json:"id"`
				Actions []struct {
					Tool string          `json:"tool"`
					Args json.RawMessage `json:"arguments"`
				} `json:"actions"`
				Outputs  []struct{ Value string } `json:"outputs"`
				Failures json.RawMessage          `json:"tool_failures"`
			}
			if err := json.Unmarshal([]byte(line), &bp); err != nil {
				t.Fatal(err)
			}
			var actions []any
			for _, a := range bp.Actions {
				actions = append(actions, map[string]any{"name": a.Tool, "arguments": a.Args})
			}
			var outputs []string
			for _, o := range bp.Outputs {
				outputs = append(outputs, o.Value)
			}
			truth[bp.ID] = map[string]any{"actions": actions, "outputs": outputs, "tool_failures": bp.Failures}
		}
	}
	var out []map[string]any
	for _, split := range []string{"train", "validation", "test"} {
		raw, err := os.ReadFile(filepath.Join(exported, "sft", split+".jsonl"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if line == "" {
				continue
			}
			var row struct {
				ID          string `json:"id"`
				BlueprintID string `json:"blueprint_id"`
				Messages    []any  `json:"messages"`
			}
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				t.Fatal(err)
			}
			out = append(out, map[string]any{"id": row.ID, "messages": row.Messages, "ground_truth": truth[row.BlueprintID]})
		}
	}
	if len(out) == 0 {
		t.Fatal("no rows exported")
	}
	return out, rel
}

func writeJSONL(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestVerifyOwnDialogues: synth's own rows, given to synth verify as
// outside JSONL, pass every check; tampered copies fail the check the
// tampering breaks, with its reason; malformed lines are reported by
// number and the run goes on, exiting 1 because some failed.
func TestVerifyOwnDialogues(t *testing.T) {
	ds, _ := ownDialogues(t, 16)
	var lines []string
	for _, d := range ds {
		lines = append(lines, mustMarshal(t, d))
	}
	// A changed tool result: the first tool message's content.
	first := ds[0]
	msgs := first["messages"].([]any)
	var tampered []any
	done := false
	for _, m := range msgs {
		mm := m.(map[string]any)
		if mm["role"] == "tool" && !done {
			c := map[string]any{}
			for k, v := range mm {
				c[k] = v
			}
			c["content"] = `{"tampered": true}`
			mm, done = c, true
		}
		tampered = append(tampered, mm)
	}
	lines = append(lines,
		mustMarshal(t, map[string]any{"id": "changed-result", "messages": tampered, "ground_truth": first["ground_truth"]}),
		mustMarshal(t, map[string]any{"id": "no-truth", "messages": msgs}),
		"this line is not JSON",
		`{"id": "empty"}`,
	)
	in := filepath.Join(t.TempDir(), "outside.jsonl")
	writeJSONL(t, in, lines)
	code, stdout, stderr := synth(t, "verify", "--domain", "retail", "--seed", "4", in)
	if code != 1 {
		t.Fatalf("verify exit %d, want 1 (some inputs fail): %s", code, stderr)
	}
	out := parseVerify(t, stdout)
	for _, d := range ds {
		l := out.lines[d["id"].(string)]
		if !l.Pass {
			t.Errorf("%s: synth's own row fails: %+v", l.ID, l.Checks)
		}
		rules := 0
		for name := range l.Checks {
			if strings.HasPrefix(name, verify.RulePrefix) {
				rules++
			}
		}
		if len(l.Checks)-rules != len(verify.OutsideChecks()) || rules == 0 {
			t.Errorf("%s: %d checks reported (%d of the policy's rules), want all %d and the rules", l.ID, len(l.Checks), rules, len(verify.OutsideChecks()))
		}
	}
	if c := out.lines["changed-result"].Checks["tool_results"]; c.Pass || !strings.Contains(c.Reason, "call 1 find_user_id_by_") || !strings.Contains(c.Reason, "recorded result differs at . (recorded an object") {
		t.Errorf("a changed tool result: %+v", c)
	}
	if c := out.lines["no-truth"].Checks["state"]; c.Pass || !strings.Contains(c.Reason, "no ground truth") {
		t.Errorf("a dialogue without ground truth: %+v", c)
	}
	bad := out.lines["line-"+strconv.Itoa(len(ds)+3)]
	if bad.Error == "" || !strings.Contains(bad.Error, "line "+strconv.Itoa(len(ds)+3)+": not a JSON dialogue") {
		t.Errorf("the line that is not JSON: %+v", bad)
	}
	if e := out.lines["empty"].Error; !strings.Contains(e, `no "messages"`) {
		t.Errorf("the line without messages: %q", e)
	}
	s := out.summary
	if s.Dialogues != len(ds)+2 || s.Malformed != 2 || s.Passed != len(ds) || s.Checks["tool_results"].Failed != 1 {
		t.Errorf("summary %+v", s)
	}
	if !strings.Contains(stderr, "malformed") {
		t.Errorf("stderr has no summary: %s", stderr)
	}
	// The summary on stderr names every check that failed a dialogue, the
	// policy's rules (rule:KIND:NAME) among them, as the JSON counts them.
	rules := 0
	for name, c := range s.Checks {
		if c.Failed == 0 {
			continue
		}
		if strings.HasPrefix(name, verify.RulePrefix) {
			rules++
		}
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(name) + ` +` + strconv.Itoa(c.Failed) + ` failed$`).MatchString(stderr) {
			t.Errorf("stderr does not say %s failed %d: %s", name, c.Failed, stderr)
		}
	}
	if rules == 0 {
		t.Errorf("no policy rule failed: the test no longer shows rule checks in the summary")
	}
}

// TestVerifyTau2Gold holds synth verify to τ²'s own tools: for every
// task of τ²'s retail and airline, a dialogue making the gold calls with
// the results oracle.py gives replays to the same results and reaches
// the gold state.
func TestVerifyTau2Gold(t *testing.T) {
	if testing.Short() {
		t.Skip("runs τ²'s oracle")
	}
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			src := tau2Folder(t, domain)
			oracle := filepath.Join(src, "..", "oracle.py")
			if _, err := exec.LookPath("python3"); err != nil {
				t.Skip("python3 is missing: τ²'s oracle cannot run")
			}
			if out, err := exec.Command("python3", "-c", "import pydantic; assert pydantic.VERSION.startswith('2')").CombinedOutput(); err != nil {
				t.Skipf("python3 lacks pydantic 2: %s", out)
			}
			pk := importTau2(t, domain)
			tasksFile := filepath.Join(src, "tasks.json")
			raw, err := exec.Command("python3", oracle, domain, filepath.Join(src, "db.json"), "--tasks", tasksFile).Output()
			if err != nil {
				t.Fatalf("oracle: %v", err)
			}
			var tasks []struct {
				ID       json.RawMessage `json:"id"`
				Criteria *struct {
					Actions []struct {
						Name string          `json:"name"`
						Args json.RawMessage `json:"arguments"`
					} `json:"actions"`
				} `json:"evaluation_criteria"`
			}
			tdata, _ := os.ReadFile(tasksFile)
			if err := json.Unmarshal(tdata, &tasks); err != nil {
				t.Fatal(err)
			}
			results := strings.Split(strings.TrimSpace(string(raw)), "\n")
			if len(results) != len(tasks) {
				t.Fatalf("oracle answered %d tasks of %d", len(results), len(tasks))
			}
			var lines []string
			calls := 0
			for i, tk := range tasks {
				var res struct {
					Results []string `json:"results"`
				}
				if err := json.Unmarshal([]byte(results[i]), &res); err != nil {
					t.Fatal(err)
				}
				msgs := []any{map[string]any{"role": "user", "content": "Hello."}}
				if tk.Criteria != nil {
					for j, a := range tk.Criteria.Actions {
						id := "call_" + strconv.Itoa(j)
						args := a.Args
						if len(args) == 0 || string(args) == "null" {
							args = json.RawMessage("{}")
						}
						msgs = append(msgs,
							map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": a.Name, "arguments": string(args)}}}},
							map[string]any{"role": "tool", "tool_call_id": id, "content": res.Results[j]})
						calls++
					}
				}
				msgs = append(msgs, map[string]any{"role": "assistant", "content": "Done."})
				lines = append(lines, mustMarshal(t, map[string]any{"id": "task-" + strings.Trim(string(tk.ID), `"`), "messages": msgs, "task_id": json.RawMessage(tk.ID)}))
			}
			in := filepath.Join(t.TempDir(), "gold.jsonl")
			writeJSONL(t, in, lines)
			code, stdout, stderr := synth(t, "verify", "--domain", pk, "--tasks", tasksFile, in)
			out := parseVerify(t, stdout)
			if want := min(out.summary.Failed, 1); code != want {
				t.Fatalf("verify: exit %d, want %d: %s", code, want, stderr)
			}
			for _, id := range out.order {
				l := out.lines[id]
				if c := l.Checks["tool_results"]; !c.Pass {
					t.Errorf("%s: %s", id, c.Reason)
				}
				if c := l.Checks["state"]; !c.Pass {
					t.Errorf("%s: %s", id, c.Reason)
				}
			}
			t.Logf("%s: %d tasks, %d gold calls replayed against τ²'s oracle's results", domain, len(out.order), calls)
		})
	}
}

// TestVerifyKeep: --keep writes the passing dialogues as a release that
// synth validate re-verifies, holding the input's messages; it records
// its sources; it never replaces a folder unasked; and a passing
// dialogue whose writes equal a held-out task's is not kept.
func TestVerifyKeep(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	ds, rel := ownDialogues(t, 16)
	var lines []string
	for _, d := range ds {
		lines = append(lines, mustMarshal(t, d))
	}
	broken := map[string]any{"id": "no-truth", "messages": ds[0]["messages"]}
	lines = append(lines, mustMarshal(t, broken), "not JSON")
	dir := t.TempDir()
	in := filepath.Join(dir, "outside.jsonl")
	writeJSONL(t, in, lines)
	keep := filepath.Join(dir, "kept")
	code, stdout, stderr := synth(t, "verify", "--domain", "retail", "--seed", "4", "--keep", keep, in)
	if code != 1 {
		t.Fatalf("verify --keep over inputs some of which fail: exit %d, want 1: %s", code, stderr)
	}
	out := parseVerify(t, stdout)
	if out.kept.Dialogues != len(ds) {
		t.Fatalf("kept %d of %d passing dialogues: %s", out.kept.Dialogues, len(ds), stderr)
	}
	if l := out.lines["no-truth"]; l.Kept == nil || *l.Kept {
		t.Errorf("a failing dialogue: kept %v", l.Kept)
	}
	if code, stdout, stderr := synth(t, "validate", keep); code != 0 || !strings.Contains(stdout, "OK") {
		t.Fatalf("validate the kept release: exit %d\n%s%s", code, stdout, stderr)
	}
	var m struct {
		Config map[string]any `json:"config"`
		Counts struct {
			SFTRows int `json:"sft_rows"`
		} `json:"counts"`
		Sources []struct {
			File                    string
			SHA256                  string
			Dialogues, Passed, Kept int
		} `json:"sources"`
	}
	raw, err := os.ReadFile(filepath.Join(keep, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m.Config["engine"] != "outside" || m.Counts.SFTRows != len(ds) || len(m.Sources) != 1 {
		t.Fatalf("manifest: engine %v, %d rows, sources %+v", m.Config["engine"], m.Counts.SFTRows, m.Sources)
	}
	if s := m.Sources[0]; s.File != "outside.jsonl" || len(s.SHA256) != 64 || s.Dialogues != len(ds)+1 || s.Passed != len(ds) || s.Kept != len(ds) {
		t.Errorf("source %+v, want %d dialogues, %d passed and kept", s, len(ds)+1, len(ds))
	}
	card, _ := os.ReadFile(filepath.Join(keep, "README.md"))
	if !strings.Contains(string(card), "kept by `synth verify --keep`") || !strings.Contains(string(card), "| outside.jsonl |") {
		t.Errorf("the card does not say where the rows came from:\n%s", card)
	}
	// The rows hold the input's messages: synth's own rows come back as
	// they went in.
	exported := filepath.Join(dir, "exported")
	if code, _, stderr := synth(t, "export", keep, "--format", "jsonl", "-o", exported); code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	rows, err := os.ReadFile(filepath.Join(exported, "sft", "train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{}
	for _, d := range ds {
		byID[d["id"].(string)] = mustMarshal(t, d["messages"])
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(rows)), "\n") {
		var row struct {
			ID       string `json:"id"`
			Messages any    `json:"messages"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		if got, want := mustMarshal(t, row.Messages), byID[row.ID]; got != want {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Errorf("row %s: messages differ from the input's at byte %d: %.80q, input %.80q", row.ID, i, got[i:], want[i:])
		}
		n++
	}
	if n != len(ds) {
		t.Errorf("%d rows exported, want %d", n, len(ds))
	}

	// A folder holding a release is replaced only with --force; one
	// holding someone's files never.
	if code, _, stderr := synth(t, "verify", "--domain", "retail", "--seed", "4", "--keep", keep, in); code == 0 || !strings.Contains(stderr, "--force") {
		t.Errorf("a second keep into a release: exit %d, %s", code, stderr)
	}
	if code, _, stderr := synth(t, "verify", "--domain", "retail", "--seed", "4", "--keep", keep, "--force", in); code != 1 {
		t.Errorf("--force: exit %d, %s", code, stderr)
	}
	mine := filepath.Join(dir, "mine")
	os.MkdirAll(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("mine"), 0o644)
	if code, _, stderr := synth(t, "verify", "--domain", "retail", "--seed", "4", "--keep", mine, "--force", in); code == 0 || !strings.Contains(stderr, "notes.txt") {
		t.Errorf("a folder with a user's file: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(mine, "notes.txt")); err != nil {
		t.Errorf("the user's file: %v", err)
	}

	// Nothing passes: nothing is written, and no folder is left behind.
	none := filepath.Join(dir, "none")
	onlyBad := filepath.Join(dir, "bad.jsonl")
	writeJSONL(t, onlyBad, []string{mustMarshal(t, broken)})
	if code, _, stderr := synth(t, "verify", "--domain", "retail", "--seed", "4", "--keep", none, onlyBad); code != 1 || !strings.Contains(stderr, "nothing written") {
		t.Errorf("a keep with nothing to keep: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(none); !os.IsNotExist(err) {
		t.Errorf("a keep with nothing to keep left %s (%v)", none, err)
	}

	// The release's own domain folder, with the writes of the first
	// dialogue that writes held out: that dialogue passes and is not kept.
	pk := filepath.Join(dir, "pack")
	copyTree(t, filepath.Join(rel, "domain"), pk)
	var heldID string
	var writes []any
	for _, d := range ds {
		for _, a := range d["ground_truth"].(map[string]any)["actions"].([]any) {
			a := a.(map[string]any)
			if strings.HasPrefix(a["name"].(string), "get_") || strings.HasPrefix(a["name"].(string), "find_") || strings.HasPrefix(a["name"].(string), "list_") || a["name"] == "calculate" || a["name"] == "transfer_to_human_agents" {
				continue
			}
			writes = append(writes, map[string]any{"name": a["name"], "arguments": a["arguments"]})
		}
		if len(writes) > 0 {
			heldID = d["id"].(string)
			break
		}
	}
	if err := os.WriteFile(filepath.Join(pk, "holdout.json"), []byte(mustMarshal(t, []any{map[string]any{"id": "bench-1", "writes": writes}})), 0o644); err != nil {
		t.Fatal(err)
	}
	y, _ := os.ReadFile(filepath.Join(pk, "domain.yaml"))
	// Renamed: a pack called retail would have to be the built-in one.
	y = []byte(strings.Replace(string(y), "name: retail\n", "name: retail-held\n", 1) + "holdout: holdout.json\n")
	os.WriteFile(filepath.Join(pk, "domain.yaml"), y, 0o644)
	held := filepath.Join(dir, "held")
	code, stdout, stderr = synth(t, "verify", "--domain", pk, "--seed", "4", "--keep", held, in)
	if code != 1 {
		t.Fatalf("verify --keep on the pack with a holdout: exit %d: %s", code, stderr)
	}
	out = parseVerify(t, stdout)
	if l := out.lines[heldID]; !l.Pass || l.Kept == nil || *l.Kept || !strings.Contains(l.NotKept, "held-out task bench-1") {
		t.Errorf("the held-out dialogue %s: pass %v kept %v (%s)", heldID, l.Pass, l.Kept, l.NotKept)
	}
	if out.kept.Dialogues != len(ds)-1 || out.kept.NotKept["held_out"] != 1 {
		t.Errorf("kept %+v", out.kept)
	}
	if code, stdout, stderr := synth(t, "validate", held); code != 0 {
		t.Errorf("validate the release with one held out: exit %d\n%s%s", code, stdout, stderr)
	}
}

// copyTree copies the regular files of src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestVerifyExitStatus: verify exits as a test runner does: 0 when every
// dialogue passed, 1 when any input failed, 2 when nothing was read.
func TestVerifyExitStatus(t *testing.T) {
	ds, _ := ownDialogues(t, 4)
	var good []string
	for _, d := range ds {
		good = append(good, mustMarshal(t, d))
	}
	dir := t.TempDir()
	pass := filepath.Join(dir, "pass.jsonl")
	writeJSONL(t, pass, good)
	bad := filepath.Join(dir, "bad.jsonl")
	writeJSONL(t, bad, []string{"not JSON"})
	locked := filepath.Join(dir, "locked.jsonl")
	writeJSONL(t, locked, good)
	os.Chmod(locked, 0)
	if f, err := os.Open(locked); err == nil {
		f.Close()
		locked = filepath.Join(dir, "none.jsonl") // root reads anything: a missing file is unreadable too
	}
	for _, c := range []struct {
		name  string
		files []string
		want  int
	}{
		{"all pass", []string{pass}, 0},
		{"one file unreadable", []string{pass, locked}, 1},
		{"a malformed line", []string{pass, bad}, 1},
		{"nothing readable", []string{locked}, 2},
		{"nothing but malformed lines", []string{bad}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := synth(t, append([]string{"verify", "--domain", "retail", "--seed", "4"}, c.files...)...)
			if code != c.want {
				t.Errorf("exit %d, want %d: %s", code, c.want, stderr)
			}
		})
	}
}
