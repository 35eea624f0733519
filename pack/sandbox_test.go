package pack

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.starlark.net/starlark"
)

const sandboxHandlers = `
def loop(db, args):
    n = 0
    while True:
        n += 1

def fails(db, args):
    fail("seat 3A is taken")

def fails_nested(db, args):
    _helper()

def _helper():
    fail("nested", "failure", 3)

def returns_set(db, args):
    return {"ok": [1, set([2])]}

def returns_func(db, args):
    return returns_set

def returns_tuple_keys(db, args):
    return {(1, 2): "x"}

def returns_nan(db, args):
    return float("nan")

def returns_big(db, args):
    return "x" * (2 * 1024 * 1024)

def runtime_error(db, args):
    x = 1
    return x // 0

def bad_put(db, args):
    db.put("items", "z", {"id": "not-z"})

def echo(db, args):
    return args

def stepper(db, args):
    for i in range(args["n"]):
        pass
    return args["n"]

def put_get(db, args):
    rec = db.get("items", "a")
    rec["n"] = rec["n"] + 1
    rec["tags"].append("new")
    db.put("items", "a", rec)
    db.delete("items", "b")
    db.put("items", "d", {"id": "d", "n": 0})
    return db.get("items", "a")

def mutate_only(db, args):
    rec = db.get("items", "a")
    rec["n"] = 99
    rec["nested"]["k"] = 99
    return rec

def keys(db, args):
    return db.keys("items")

def find(db, args):
    return [r["id"] for r in db.find("items", **args)]

def next_ids(db, args):
    return [db.next_id("x"), db.next_id("x"), db.next_id("y")]

def same_value(db, args):
    rec = db.get("items", "a")
    rec["n"] = 3.0
    db.put("items", "a", rec)
    return rec["n"]

def env(db, args):
    return {"now": NOW, "json": json.encode({"b": [1, 2.5]}), "sqrt": math.sqrt(16), "type": type(db)}

def get_path(db, args):
    return db.get("items", args["key"], *args["path"])

def mutate_path(db, args):
    nested = db.get("items", "a", "nested")
    nested["k"] = 9
    return db.get("items", "a", "nested", "k")

def crash(db, args):
    return db.get("items")
`

func call(t *testing.T, p *Pack, ctx context.Context, name, args string) (string, bool) {
	t.Helper()
	st := p.Base.NewState()
	r := p.Tools.Call(ctx, st, name, args)
	return r.Output, r.Err
}

// TestSandboxFailures covers every failure class: each becomes an
// "Error: ..." observation, never a panic or a hang.
func TestSandboxFailures(t *testing.T) {
	p := mustLoad(t, miniFS(sandboxHandlers), DefaultLimits())
	big := `{"s": "` + strings.Repeat("x", 70<<10) + `"}`
	cases := []struct {
		tool, args string
		want       *regexp.Regexp
	}{
		{"loop", "{}", regexp.MustCompile(`^Error: handler loop ran past its step limit of 1000000 steps$`)},
		{"fails", "{}", regexp.MustCompile(`^Error: seat 3A is taken$`)},
		{"fails_nested", "{}", regexp.MustCompile(`^Error: nested failure 3$`)},
		{"returns_set", "{}", regexp.MustCompile(`^Error: handler returns_set returned a non-JSON value: a value of type set at \["ok"\]\[1\]$`)},
		{"returns_func", "{}", regexp.MustCompile(`^Error: handler returns_func returned a non-JSON value: a value of type function$`)},
		{"returns_tuple_keys", "{}", regexp.MustCompile(`^Error: handler returns_tuple_keys returned a non-JSON value: a dict key of type tuple`)},
		{"returns_nan", "{}", regexp.MustCompile(`^Error: handler returns_nan returned a non-JSON value: the float NaN`)},
		{"returns_big", "{}", regexp.MustCompile(`^Error: handler returns_big returned more than 1048576 bytes$`)},
		{"runtime_error", "{}", regexp.MustCompile(`^Error: handler runtime_error failed at handlers.star:33:\d+: floored division by zero$`)},
		{"bad_put", "{}", regexp.MustCompile(`^Error: handler bad_put failed at handlers.star:36:\d+: db.put\("items", "z"\): the record's key field "id" is "not-z", want "z"$`)},
		{"crash", "{}", regexp.MustCompile(`^Error: handler crash failed at handlers.star:\d+:\d+: db.get: got 1 arguments, want 2$`)},
		{"echo", big, regexp.MustCompile(`^Error: arguments of echo exceed 65536 bytes$`)},
		{"echo", `{"s": "ok", "n": 3, "f": 2.5, "big": 123456789012345678901234567890}`, regexp.MustCompile(`^\{"big":1\.2345678901234568e\+29,"f":2\.5,"n":3,"s":"ok"\}$`)},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			out, isErr := call(t, p, context.Background(), c.tool, c.args)
			if !c.want.MatchString(out) {
				t.Errorf("%s(%.40s) = %q, want %v", c.tool, c.args, out, c.want)
			}
			if isErr != strings.HasPrefix(out, "Error: ") {
				t.Errorf("Err flag %v for %q", isErr, out)
			}
		})
	}
}

// TestStepLimitConfigurable checks the limit is the configured one and
// counts steps: a short loop passes, a long one stops.
func TestStepLimitConfigurable(t *testing.T) {
	lim := DefaultLimits()
	lim.Steps = 5000
	p := mustLoad(t, miniFS(sandboxHandlers), lim)
	if out, isErr := call(t, p, context.Background(), "stepper", `{"n": 100}`); isErr || out != "100" {
		t.Errorf("short loop: %q", out)
	}
	out, _ := call(t, p, context.Background(), "stepper", `{"n": 100000}`)
	if out != "Error: handler stepper ran past its step limit of 5000 steps" {
		t.Errorf("long loop: %q", out)
	}
}

// TestCancellation stops a handler that would otherwise run for a very
// long time, through its context.
func TestCancellation(t *testing.T) {
	lim := DefaultLimits()
	lim.Steps = 1 << 62
	p := mustLoad(t, miniFS(sandboxHandlers), lim)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string)
	go func() {
		out, _ := call(t, p, ctx, "loop", "{}")
		done <- out
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	out := <-done
	if out != "Error: handler loop was cancelled: context canceled" {
		t.Errorf("cancelled loop: %q", out)
	}
	// An already cancelled context never starts the handler.
	if out, _ := call(t, p, ctx, "fails", "{}"); !strings.Contains(out, "was cancelled") {
		t.Errorf("pre-cancelled: %q", out)
	}
}

// TestWritesStayInState checks handler writes land in the episode's
// overlay, never in the base, and that db.get hands out copies.
func TestWritesStayInState(t *testing.T) {
	p := mustLoad(t, miniFS(sandboxHandlers), DefaultLimits())
	baseHash := p.Base.Hash()
	st := p.Base.NewState()
	r := p.Tools.Call(context.Background(), st, "mutate_only", "{}")
	if r.Err || !strings.Contains(r.Output, `"n":99`) {
		t.Fatalf("mutate_only: %s", r.Output)
	}
	if st.Hash() != baseHash || st.Changed() != 0 {
		t.Errorf("mutating a db.get copy changed the state")
	}
	r = p.Tools.Call(context.Background(), st, "put_get", "{}")
	if r.Err {
		t.Fatalf("put_get: %s", r.Output)
	}
	if want := `{"id":"a","n":4,"nested":{"k":1},"tags":["x","new"]}`; r.Output != want {
		t.Errorf("put_get = %s, want %s", r.Output, want)
	}
	if st.Hash() == baseHash || st.Changed() != 3 {
		t.Errorf("state after writes: hash unchanged or %d changed records", st.Changed())
	}
	if _, ok := st.Get("items", "b"); ok {
		t.Errorf("b still visible after db.delete")
	}
	if got := strings.Join(st.Keys("items"), ","); got != "a,c,d" {
		t.Errorf("state keys %s", got)
	}
	a, _ := p.Base.Get("items", "a")
	if b, _ := json.Marshal(a); string(b) != `{"id":"a","n":3,"nested":{"k":1},"tags":["x"]}` {
		t.Errorf("base record changed: %s", b)
	}
	if _, ok := p.Base.Get("items", "b"); !ok || p.Base.Hash() != baseHash {
		t.Errorf("base changed")
	}
	// A fresh episode sees the base again.
	if r := p.Tools.Call(context.Background(), p.Base.NewState(), "keys", "{}"); r.Output != `["a","b","c"]` {
		t.Errorf("fresh keys: %s", r.Output)
	}
}

func TestDBMethods(t *testing.T) {
	p := mustLoad(t, miniFS(sandboxHandlers), DefaultLimits())
	cases := []struct{ tool, args, want string }{
		{"find", `{"n": 3}`, `["a","c"]`},
		{"find", `{"n": 3.0}`, `["a","c"]`},
		{"find", `{"n": 4.5}`, `["b"]`},
		{"find", `{"nested.k": 1, "tags": ["y"]}`, `["c"]`},
		{"find", `{"missing": 1}`, `[]`},
		{"find", `{}`, `["a","b","c"]`},
		{"next_ids", `{}`, `[1,2,1]`},
		{"get_path", `{"key": "a", "path": []}`, `{"id":"a","n":3,"nested":{"k":1},"tags":["x"]}`},
		{"get_path", `{"key": "a", "path": ["nested"]}`, `{"k":1}`},
		{"get_path", `{"key": "a", "path": ["nested", "k"]}`, `1`},
		{"get_path", `{"key": "a", "path": ["tags", 0]}`, `x`},
		{"get_path", `{"key": "a", "path": ["tags", -1]}`, `x`},
		{"get_path", `{"key": "a", "path": ["tags", 1]}`, `null`},
		{"get_path", `{"key": "a", "path": ["tags", "0"]}`, `null`},
		{"get_path", `{"key": "a", "path": ["missing"]}`, `null`},
		{"get_path", `{"key": "a", "path": ["n", "deeper"]}`, `null`},
		{"get_path", `{"key": "a", "path": [null]}`, `null`},
		{"get_path", `{"key": "z", "path": ["n"]}`, `null`},
		{"mutate_path", `{}`, `1`},
		{"env", `{}`, `{"json":"{\"b\":[1,2.5]}","now":"2024-05-15T15:00:00Z","sqrt":4,"type":"db"}`},
	}
	for _, c := range cases {
		if out, _ := call(t, p, context.Background(), c.tool, c.args); out != c.want {
			t.Errorf("%s(%s) = %s, want %s", c.tool, c.args, out, c.want)
		}
	}
}

// TestCanonicalHash: 3 and 3.0 are one number, in the base and in writes.
func TestCanonicalHash(t *testing.T) {
	fa := miniFS(sandboxHandlers)
	fb := miniFS(sandboxHandlers)
	fb["db.json"].Data = []byte(strings.Replace(miniDB, `"n": 3,`, `"n": 3.0,`, 1))
	pa, pb := mustLoad(t, fa, DefaultLimits()), mustLoad(t, fb, DefaultLimits())
	if pa.Base.Hash() != pb.Base.Hash() {
		t.Errorf("3 and 3.0 hash differently in a base")
	}
	st := pa.Base.NewState()
	if r := pa.Tools.Call(context.Background(), st, "same_value", "{}"); r.Err {
		t.Fatal(r.Output)
	}
	if st.Hash() != pa.Base.Hash() {
		t.Errorf("writing 3.0 over 3 changed the hash")
	}
}

// TestNoOutsideAccess: nothing in a handler's environment reaches files,
// the network or the clock, and load() is refused.
func TestNoOutsideAccess(t *testing.T) {
	env := environment("", false)
	for name := range env {
		switch name {
		case "json", "math", "NOW", "fail":
		default:
			t.Errorf("unexpected predeclared name %q", name)
		}
	}
	for _, name := range []string{"open", "time", "http", "os", "exec", "eval", "sleep", "input", "read", "load_file", "__import__", "random", "print_to_file"} {
		t.Run(name, func(t *testing.T) {
			if _, ok := starlark.Universe[name]; ok {
				t.Fatalf("%s is in the Starlark universe", name)
			}
			fsys := miniFS(fmt.Sprintf("def f(db, args):\n    return %s\n", name))
			probs := Validate(context.Background(), fsys, Options{})
			if len(probs) != 1 || probs[0].String() != fmt.Sprintf("handlers.star:2: column 12: undefined: %s", name) {
				t.Errorf("problems %v", probs)
			}
		})
	}
	probs := Validate(context.Background(), miniFS("load(\"other.star\", \"x\")\n\ndef f(db, args):\n    return 1\n"), Options{})
	if len(probs) != 1 || !strings.HasPrefix(probs[0].String(), `handlers.star:1: load("other.star") is not allowed`) {
		t.Errorf("load problems %v", probs)
	}
	// print goes nowhere rather than to the process's stderr.
	p := mustLoad(t, miniFS("def f(db, args):\n    print(\"leak\")\n    return 1\n"), DefaultLimits())
	if out, _ := call(t, p, context.Background(), "f", "{}"); out != "1" {
		t.Errorf("print: %s", out)
	}
}

// TestConcurrentCalls runs one toolkit from many goroutines (with -race).
func TestConcurrentCalls(t *testing.T) {
	p := mustLoad(t, miniFS(sandboxHandlers), DefaultLimits())
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				st := p.Base.NewState()
				r := p.Tools.Call(context.Background(), st, "put_get", "{}")
				if r.Err || st.Changed() != 3 {
					t.Errorf("goroutine %d: %s", g, r.Output)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// A record keyed within its parents (a role many members hold) is put
// at their keys and its own joined by "/", and nowhere else.
func TestCheckKeyWithin(t *testing.T) {
	roles := Collection{Key: "role_id", Within: []string{"guild_id", "user_id"}}
	rec := map[string]any{"guild_id": "6814", "user_id": int64(64), "role_id": "0"}
	for _, tc := range []struct {
		col  Collection
		key  string
		want string // "" for no error
	}{
		{roles, "6814/64/0", ""},
		{roles, "0", `give the key "6814/64/0", want "0"`},
		{roles, "6814/65/0", `want "6814/65/0"`},
		{Collection{Key: "role_id", Within: []string{"channel_id"}}, "x/0", `no parent field "channel_id"`},
		{Collection{Key: "role_id"}, "0", ""},
	} {
		err := checkKey(rec, tc.col, tc.key)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("checkKey(%v, %q) = %v, want %q", tc.col.Within, tc.key, err, tc.want)
		}
	}
}
