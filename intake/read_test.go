package intake

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/record"
)

func readAll(t *testing.T, path string, opts Options) []Dialogue {
	t.Helper()
	var out []Dialogue
	if err := Read(context.Background(), path, opts, func(d Dialogue) error {
		out = append(out, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func tasks(t *testing.T) map[string]*Truth {
	t.Helper()
	ts, err := ReadTasks(filepath.Join("testdata", "tasks.json"))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestReadJSONL: good lines become dialogues, each malformed one an
// error naming its line, and reading goes on past them.
func TestReadJSONL(t *testing.T) {
	ds := readAll(t, filepath.Join("testdata", "dialogues.jsonl"), Options{Tasks: tasks(t)})
	want := []struct {
		id, err string
	}{
		{"ok-1", ""},
		{"line-3", "line 3: not a JSON dialogue"},
		{"no-messages", `line 4: no "messages"`},
		{"bad-role", `line 5: messages[0]: role "robot"`},
		{"7", ""},
		{"unknown-task", "line 7: task_id 99 is not a task of the --tasks file"},
	}
	if len(ds) != len(want) {
		t.Fatalf("%d dialogues, want %d (the blank line skipped)", len(ds), len(want))
	}
	for i, w := range want {
		d := ds[i]
		if d.ID != w.id {
			t.Errorf("dialogue %d: id %q, want %q", i, d.ID, w.id)
		}
		switch {
		case w.err == "" && d.Err != nil:
			t.Errorf("%s: %v", d.ID, d.Err)
		case w.err != "" && (d.Err == nil || !strings.Contains(d.Err.Error(), w.err)):
			t.Errorf("%s: error %v, want %q", d.ID, d.Err, w.err)
		}
	}
	ok := ds[0]
	if ok.Truth == nil || len(ok.Truth.Actions) != 1 || string(ok.Truth.Actions[0].Arguments) != `{"email": "a@example.com"}` || ok.Truth.Outputs[0] != "user_a" {
		t.Errorf("ground truth %+v", ok.Truth)
	}
	parts := ds[4]
	if parts.Messages[0].Content != "part one, part two" || parts.Messages[1].Calls[0].Arguments != `{"order_id": "#W1"}` {
		t.Errorf("content parts or object arguments misread: %+v", parts.Messages[:2])
	}
	if parts.Truth == nil || parts.Truth.Actions[0].Name != "get_order_details" || parts.Truth.Outputs[0] != "42" {
		t.Errorf("task 3's ground truth: %+v", parts.Truth)
	}
}

// TestReadTau2Results: τ²'s own layout, with its tasks listed after the
// simulations; a simulation calling the user's tools is refused by name.
func TestReadTau2Results(t *testing.T) {
	ds := readAll(t, filepath.Join("testdata", "tau2_results.json"), Options{})
	if len(ds) != 2 {
		t.Fatalf("%d dialogues", len(ds))
	}
	a := ds[0]
	if a.Err != nil || a.ID != "sim-a" || a.Format != FormatTau2 || a.Ending != record.EndStop || a.Truth == nil {
		t.Fatalf("sim-a: %+v", a)
	}
	if c := a.Messages[2].Calls[0]; c.ID != "toolu_01" || c.Arguments != `{"order_id": "#W1"}` || a.Messages[3].CallID != "toolu_01" {
		t.Errorf("sim-a's call and result: %+v %+v", a.Messages[2], a.Messages[3])
	}
	if b := ds[1]; b.Err == nil || !strings.Contains(b.Err.Error(), "simulations[1]") || !strings.Contains(b.Err.Error(), "user's own tools") {
		t.Errorf("sim-b: %v", b.Err)
	}
}

// TestReadTauBench: τ-bench's trajectories, ids from task and trial, the
// ground truth from info.task.
func TestReadTauBench(t *testing.T) {
	ds := readAll(t, filepath.Join("testdata", "taubench.json"), Options{})
	if len(ds) != 2 {
		t.Fatalf("%d dialogues", len(ds))
	}
	if d := ds[0]; d.Err != nil || d.ID != "task-0-trial-2" || d.Truth == nil || d.Truth.Actions[0].Name != "cancel_reservation" || d.Truth.Outputs[0] != "100" {
		t.Errorf("run 0: %+v", d)
	}
	if d := ds[1]; d.Err == nil || !strings.Contains(d.Err.Error(), `[1]: no "traj"`) {
		t.Errorf("run 1: %v", d.Err)
	}
}

// TestReadLongLine: a line past MaxLine is reported by number and the
// next line is read.
func TestReadLongLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.jsonl")
	long := `{"id": "big", "messages": [{"role": "user", "content": "` + strings.Repeat("x", MaxLine) + `"}]}`
	good := `{"id": "after", "messages": [{"role": "user", "content": "hi"}]}`
	if err := os.WriteFile(path, []byte(long+"\n"+good+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds := readAll(t, path, Options{})
	if len(ds) != 2 || ds[0].Err == nil || !strings.Contains(ds[0].Err.Error(), "line 1: longer than") || ds[1].ID != "after" || ds[1].Err != nil {
		t.Fatalf("%+v", ds)
	}
}

// TestReadUnreadable: a results file broken mid-way fails with the
// entry, and a missing file fails.
func TestReadUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.json")
	if err := os.WriteFile(path, []byte("{\n  \"simulations\": [\n    {\"id\": \"a\", \"messages\": [}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Read(context.Background(), path, Options{Tasks: map[string]*Truth{}}, func(Dialogue) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "simulations[0]") {
		t.Errorf("broken results file: %v", err)
	}
	if err := Read(context.Background(), filepath.Join(t.TempDir(), "none.jsonl"), Options{}, func(Dialogue) error { return nil }); err == nil {
		t.Error("a missing file read")
	}
}

// TestMessagesEndings: stop tokens become endings, call ids map one to
// one onto 9 alphanumerics, the policy opens a dialogue without a system
// message.
func TestMessagesEndings(t *testing.T) {
	call := func(id, name string) Message {
		return Message{Role: "assistant", Calls: []Call{{ID: id, Name: name, Arguments: "{}"}}}
	}
	cases := []struct {
		name   string
		msgs   []Message
		ending string
		n      int
	}{
		{"stop token", []Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "bye"}, {Role: "user", Content: "thanks ###STOP###"}}, record.EndStop, 3},
		{"transfer token", []Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hold on"}, {Role: "user", Content: "###TRANSFER###"}}, record.EndTransfer, 3},
		{"transfer call last", []Message{{Role: "user", Content: "hi"}, call("a", "transfer_to_human_agents"), {Role: "tool", CallID: "a", Content: "ok"}}, record.EndTransfer, 4},
		{"agent's last word", []Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "bye"}}, record.EndStop, 3},
		{"user's last word", []Message{{Role: "user", Content: "hi"}}, "", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ending := messages(Dialogue{Messages: tc.msgs}, "POLICY")
			if ending != tc.ending || len(got) != tc.n || got[0].Role != "system" || got[0].Content != "POLICY" {
				t.Errorf("ending %q, %d messages (%+v)", ending, len(got), got)
			}
		})
	}
	got, _ := messages(Dialogue{Messages: []Message{
		{Role: "system", Content: "own"}, call("dup", "x"), {Role: "tool", CallID: "dup"}, call("dup", "y"), {Role: "tool", CallID: "dup"},
	}}, "POLICY")
	if got[0].Content != "own" || got[1].ToolCalls[0].ID != got[3].ToolCalls[0].ID || len(got[1].ToolCalls[0].ID) != 9 || got[2].Name != "x" || got[4].Name != "y" {
		t.Errorf("ids or names: %+v", got)
	}
}

// TestReadWeights: an assistant message's fine-tuning weight (0 or 1)
// comes through, so a kept row is the row that went in; any other weight,
// or one on another role, is an error naming the message.
func TestReadWeights(t *testing.T) {
	lines := []string{
		`{"id":"w","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"wrong","weight":0},{"role":"user","content":"no"},{"role":"assistant","content":"right","weight":1}]}`,
		`{"id":"w2","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"x","weight":2}]}`,
		`{"id":"w3","messages":[{"role":"user","content":"hi","weight":0}]}`,
	}
	path := filepath.Join(t.TempDir(), "w.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds := readAll(t, path, Options{})
	if len(ds) != 3 {
		t.Fatalf("%d dialogues, want 3", len(ds))
	}
	if ds[0].Err != nil {
		t.Fatal(ds[0].Err)
	}
	msgs := ds[0].Messages
	if msgs[1].Weight == nil || *msgs[1].Weight != 0 || msgs[3].Weight == nil || *msgs[3].Weight != 1 || msgs[0].Weight != nil {
		t.Errorf("weights misread: %v %v %v", msgs[0].Weight, msgs[1].Weight, msgs[3].Weight)
	}
	for i, want := range []string{"messages[1].weight: 2 on this assistant", "messages[0].weight: 0 on this user"} {
		if d := ds[i+1]; d.Err == nil || !strings.Contains(d.Err.Error(), want) {
			t.Errorf("%s: error %v, want %q", d.ID, d.Err, want)
		}
	}
}
