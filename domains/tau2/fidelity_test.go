package tau2

import (
	"encoding/json"
	"fmt"
	"github.com/synth-data/synth/tools"
	"os"
	"path/filepath"
	"strings"
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
	if testing.Short() {
		t.Skip(shortSkip)
	}
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			pyd := needPython(t)
			e := loadEnv(t, domain)
			tasks := loadTasks(t, domain)
			lines := runOracleTasks(t, domain, filepath.Join(tau2Dir(t), domain, "tasks.json"))
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
				sha := e.stateSHA(st)
				if i < 3 {
					// The reused record texts hash as the whole database does.
					if full := canonicalSHA(e.dumpState(st)); full != sha {
						t.Fatalf("task %s: stateSHA %s, the whole database's %s", tk.ID, sha, full)
					}
				}
				if sha != want.SHA {
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

// streamCalls is how many random calls each domain's stream makes.
const streamCalls = 2500

// TestFidelityRandom runs a seeded stream of random calls, valid and
// invalid arguments mixed, on one state: every result must equal the
// oracle's, and so must the final database (as JSON values and, stricter,
// in Python's canonical text, where an int for a float shows).
func TestFidelityRandom(t *testing.T) {
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			pyd := needPython(t)
			e := loadEnv(t, domain)
			var next func() oracleCall
			var g *gen
			switch domain {
			case "retail":
				rg := newRetailGen(e, 20240515)
				next, g = rg.next, &rg.gen
			case "airline":
				ag := newAirlineGen(e, 20240515)
				next, g = ag.next, &ag.gen
			}
			calls := make([]oracleCall, streamCalls)
			for i := range calls {
				calls[i] = next()
			}
			if g.err != nil {
				t.Fatal(g.err)
			}
			want := runOracle(t, domain, calls)
			got, st := e.replay(t, calls)
			agree, errs := 0, 0
			perTool := map[string][2]int{} // agreeing, errors among them
			for i, r := range got {
				if strings.Contains(r.Output, "do not match its schema") {
					t.Errorf("call %d %s%s: the generator made arguments the schema refuses: %s", i, calls[i].Name, calls[i].Args, r.Output)
					continue
				}
				if d := resultDiff(r.Output, want.Results[i], pyd); d != "" {
					t.Errorf("call %d %s%s: %s", i, calls[i].Name, calls[i].Args, d)
					continue
				}
				agree++
				c := perTool[calls[i].Name]
				c[0]++
				if r.Err {
					errs++
					c[1]++
				}
				perTool[calls[i].Name] = c
			}
			mine := decodeJSON(mustJSON(t, e.dumpState(st)))
			theirs := decodeJSON(want.DB)
			if d := jsonDiff(mine, theirs, "db"); d != "" {
				t.Errorf("final database differs from the oracle's at %s", d)
			} else {
				var a, b strings.Builder
				pyCanonical(&a, e.dumpState(st))
				pyCanonical(&b, theirs)
				if a.String() != b.String() {
					t.Errorf("final database equal as JSON values but not in Python's number kinds (int vs float): %s", kindDiff(e.dumpState(st), theirs, "db"))
				}
			}
			for _, name := range sortedKeys(perTool) {
				c := perTool[name]
				t.Logf("  %-32s %4d agree (%d of them errors)", name, c[0], c[1])
			}
			t.Logf("%s random stream: %d/%d calls agree with τ²'s oracle (%d errors, %d results), final database equal", domain, agree, len(calls), errs, agree-errs)
			if errs*10 > agree*8 || errs*10 < agree {
				t.Errorf("the stream is %d errors of %d calls: want a mix of valid and invalid calls", errs, agree)
			}
		})
	}
}

// kindDiff is the first place where two databases, equal as values,
// differ in Python's text (an int where the other has a float).
func kindDiff(mine, theirs any, path string) string {
	var a, b strings.Builder
	pyCanonical(&a, mine)
	pyCanonical(&b, theirs)
	if a.String() == b.String() {
		return ""
	}
	m1, ok1 := mine.(map[string]any)
	m2, ok2 := theirs.(map[string]any)
	if ok1 && ok2 {
		for _, k := range sortedKeys(m1) {
			if d := kindDiff(m1[k], m2[k], path+"."+k); d != "" {
				return d
			}
		}
	}
	l1, ok1 := mine.([]any)
	l2, ok2 := theirs.([]any)
	if ok1 && ok2 && len(l1) == len(l2) {
		for i := range l1 {
			if d := kindDiff(l1[i], l2[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
	}
	return fmt.Sprintf("%s: %s vs %s", path, clip(a.String()), clip(b.String()))
}

// episodes × episodeCalls random calls, each episode on a fresh database:
// unlike the long stream, every episode may book its three reservations
// and issue its three certificates.
const (
	episodes     = 48
	episodeCalls = 25
)

// TestFidelityEpisodes runs random episodes through oracle.py's task mode
// (a fresh database per episode, in one oracle run): each result equal,
// each final database hashing to the oracle's.
func TestFidelityEpisodes(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			pyd := needPython(t)
			e := loadEnv(t, domain)
			var next func() oracleCall
			var g *gen
			switch domain {
			case "retail":
				rg := newRetailGen(e, 515)
				next, g = rg.next, &rg.gen
			case "airline":
				ag := newAirlineGen(e, 515)
				next, g = ag.next, &ag.gen
			}
			eps := make([][]oracleCall, episodes)
			for i := range eps {
				for range episodeCalls {
					eps[i] = append(eps[i], next())
				}
			}
			if g.err != nil {
				t.Fatal(g.err)
			}
			calls, agree, writes, dbOK, outcomes := compareEpisodes(t, e, pyd, eps)
			if testing.Verbose() {
				for _, k := range sortedKeys(outcomes) {
					t.Logf("  %5d  %s", outcomes[k], k)
				}
			}
			t.Logf("%s random episodes: %d/%d calls agree with τ²'s oracle (%d successful writes), %d/%d final databases equal", domain, agree, calls, writes, dbOK, episodes)
		})
	}
}

// outcome names what a call came to, for the coverage summary: the tool
// and "ok" or its error with the ids taken out.
func outcome(name string, r tools.Result) string {
	if !r.Err {
		return name + ": ok"
	}
	msg := strings.TrimPrefix(r.Output, "Error: ")
	if i := strings.IndexByte(msg, '\n'); i > 0 {
		msg = msg[:i]
	}
	var b strings.Builder
	for _, w := range strings.Fields(msg) {
		if strings.ContainsAny(w, "0123456789_#'") {
			w = "…"
		}
		b.WriteString(w + " ")
	}
	return name + ": " + strings.TrimSpace(b.String())
}

// compareEpisodes runs each episode on a fresh database here and in one
// run of oracle.py's task mode, and reports every difference.
func compareEpisodes(t *testing.T, e *env, pyd string, eps [][]oracleCall) (calls, agree, writes, dbOK int, outcomes map[string]int) {
	t.Helper()
	type action struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"arguments"`
	}
	type synthTask struct {
		ID       string `json:"id"`
		Criteria struct {
			Actions []action `json:"actions"`
		} `json:"evaluation_criteria"`
	}
	tasks := make([]synthTask, len(eps))
	for i, cs := range eps {
		tasks[i].ID = fmt.Sprintf("episode-%d", i)
		tasks[i].Criteria.Actions = []action{}
		for _, c := range cs {
			tasks[i].Criteria.Actions = append(tasks[i].Criteria.Actions, action(c))
		}
	}
	f := filepath.Join(t.TempDir(), "episodes.json")
	if err := os.WriteFile(f, mustJSON(t, tasks), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := runOracleTasks(t, e.domain, f)
	if len(lines) != len(eps) {
		t.Fatalf("oracle answered %d episodes of %d", len(lines), len(eps))
	}
	outcomes = map[string]int{}
	for i, cs := range eps {
		got, st := e.replay(t, cs)
		for j, r := range got {
			calls++
			outcomes[outcome(cs[j].Name, r)]++
			if d := resultDiff(r.Output, lines[i].Results[j], pyd); d != "" {
				t.Errorf("episode %d call %d %s%s: %s", i, j, cs[j].Name, cs[j].Args, d)
				continue
			}
			agree++
			if !r.Err && r.Kind == "write" {
				writes++
			}
		}
		if sha := e.stateSHA(st); sha != lines[i].SHA {
			out := runOracle(t, e.domain, cs)
			mine := e.dumpState(st)
			d := jsonDiff(decodeJSON(mustJSON(t, mine)), decodeJSON(out.DB), "db")
			if d == "" {
				d = "equal as values; " + kindDiff(mine, decodeJSON(out.DB), "db")
			}
			t.Errorf("episode %d: final database differs from the oracle's: %s", i, d)
			continue
		}
		dbOK++
	}
	return calls, agree, writes, dbOK, outcomes
}
