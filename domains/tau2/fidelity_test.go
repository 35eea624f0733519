package tau2

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Fidelity: the Go tools against τ²'s own (oracle.py), call by call and
// in the final database.

type task struct {
	ID       string `json:"id"`
	Criteria *struct {
		Actions []struct {
			Name string          `json:"name"`
			Args json.RawMessage `json:"arguments"`
		} `json:"actions"`
	} `json:"evaluation_criteria"`
}

func loadTasks(t *testing.T, domain string) []task {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(tau2Dir(t), domain, "tasks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tasks []task
	if err := json.Unmarshal(data, &tasks); err != nil {
		t.Fatal(err)
	}
	return tasks
}

func (tk task) calls() []oracleCall {
	var out []oracleCall
	if tk.Criteria == nil {
		return nil
	}
	for _, a := range tk.Criteria.Actions {
		args := a.Args
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		out = append(out, oracleCall{Name: a.Name, Args: args})
	}
	return out
}

// TestFidelityTasks replays every gold action sequence of τ²'s tasks: each
// result JSON-equal to the oracle's, and the final database hashing to
// the oracle's sha256 (canonical JSON, Python's number text: int and
// float kinds must agree too).
func TestFidelityTasks(t *testing.T) {
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			pyd := needPython(t)
			e := loadEnv(t, domain)
			tasks := loadTasks(t, domain)
			lines := runOracleTasks(t, domain)
			if len(lines) != len(tasks) {
				t.Fatalf("oracle answered %d tasks of %d", len(lines), len(tasks))
			}
			calls, agree, tasksOK := 0, 0, 0
			for i, tk := range tasks {
				want := lines[i]
				cs := tk.calls()
				got, st := e.replay(t, cs)
				ok := true
				for j, r := range got {
					calls++
					if d := resultDiff(r.Output, want.Results[j], pyd); d != "" {
						ok = false
						t.Errorf("task %s call %d %s%s: %s", tk.ID, j, cs[j].Name, cs[j].Args, d)
						continue
					}
					agree++
				}
				if sha := canonicalSHA(e.dumpState(st)); sha != want.SHA {
					ok = false
					out := runOracle(t, domain, cs)
					t.Errorf("task %s: final database differs from the oracle's: %s", tk.ID, jsonDiff(decodeJSON(mustJSON(t, e.dumpState(st))), decodeJSON(out.DB), "db"))
				}
				if ok {
					tasksOK++
				}
			}
			t.Logf("%s gold actions: %d/%d calls agree with τ²'s oracle, %d/%d tasks agree (results and final database)", domain, agree, calls, tasksOK, len(tasks))
		})
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
