package tau2

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/pack"
)

// The built-in airline (domains/airline) runs on these handlers over a
// database its generator.star makes. These tests hold that database to
// τ²'s model as τ²'s own code would: read by CheckAirlineDB it is already
// in model_dump form, and τ²'s Python tools (oracle.py) answer random
// calls on it as the Go handlers do. The pack is read from its folder
// (importing the package would be a cycle).

// builtinAirline loads the built-in airline pack with seed 1 and writes
// its database as a db.json in a test folder.
func builtinAirline(t *testing.T) (*env, string, []byte) {
	t.Helper()
	fsys := PackFS(os.DirFS(filepath.Join("..", "airline")), AirlineTools())
	p, err := pack.Load(context.Background(), fsys, 1, testOptions())
	if err != nil {
		t.Fatalf("load the built-in airline: %v", err)
	}
	e := &env{domain: "airline", base: p.Base, kit: p.Tools, colls: domainCollections["airline"]}
	data, err := json.Marshal(e.dumpState(p.Base.NewState()))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "db.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return e, path, data
}

// TestBuiltinAirlineDB: the generated database passes CheckAirlineDB,
// which changes nothing in it, down to Python's int and float kinds.
func TestBuiltinAirlineDB(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	e, _, data := builtinAirline(t)
	checked, err := CheckAirlineDB(data)
	if err != nil {
		t.Fatalf("τ²'s model refuses the generated database: %v", err)
	}
	mine := e.dumpState(e.base.NewState())
	theirs := make(map[string]any, len(checked))
	for c, recs := range checked {
		m := make(map[string]any, len(recs))
		for k, r := range recs {
			m[k] = r
		}
		theirs[c] = m
	}
	if d := jsonDiff(mine, theirs, "db"); d != "" {
		t.Fatalf("model_dump changes the generated database at %s", d)
	}
	if d := kindDiff(mine, theirs, "db"); d != "" {
		t.Errorf("the generated database holds another number kind than τ²'s model: %s", d)
	}
}

// TestBuiltinAirlineOracle runs a random stream of calls on the generated
// database in Go and in τ²'s oracle.py: every result and the final
// database agree.
func TestBuiltinAirlineOracle(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	pyd := needPython(t)
	e, path, _ := builtinAirline(t)
	g := newAirlineGen(e, 20240515)
	calls := make([]oracleCall, streamCalls)
	for i := range calls {
		calls[i] = g.next()
	}
	if g.err != nil {
		t.Fatal(g.err)
	}
	want := runOracleOn(t, "airline", path, calls)
	got, st := e.replay(t, calls)
	agree, errs := 0, 0
	for i, r := range got {
		if d := resultDiff(r.Output, want.Results[i], pyd); d != "" {
			t.Errorf("call %d %s%s: %s", i, calls[i].Name, calls[i].Args, d)
			continue
		}
		agree++
		if r.Err {
			errs++
		}
	}
	if d := jsonDiff(decodeJSON(mustJSON(t, e.dumpState(st))), decodeJSON(want.DB), "db"); d != "" {
		t.Errorf("final database differs from the oracle's at %s", d)
	}
	t.Logf("built-in airline: %d/%d calls agree with τ²'s oracle (%d errors)", agree, len(calls), errs)
	if errs*10 > agree*8 || !strings.Contains(strings.Join(want.Results, "\n"), "reservation_id") {
		t.Errorf("the stream is %d errors of %d calls: want a mix of successful and failed calls", errs, agree)
	}
}
