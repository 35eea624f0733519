package pack

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/synth-data/synth/record"
)

func initPack(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "helpdesk")
	if err := Init(dir, ""); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestInit: the scaffold validates, loads and its tools work end to end.
func TestInit(t *testing.T) {
	dir := initPack(t)
	if probs := Validate(context.Background(), os.DirFS(dir), Options{}); len(probs) > 0 {
		t.Fatalf("scaffold has problems: %v", probs)
	}
	p, err := LoadDir(context.Background(), dir, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Manifest.Name != "helpdesk" || !strings.Contains(p.Policy, "helpdesk") {
		t.Errorf("name %q, policy %.60q", p.Manifest.Name, p.Policy)
	}
	kinds := map[string]int{}
	for _, tl := range p.Tools.Tools() {
		kinds[tl.Kind]++
	}
	if kinds[record.KindRead] != 3 || kinds[record.KindWrite] != 3 || kinds[record.KindGeneric] != 1 {
		t.Errorf("tool kinds %v", kinds)
	}
	if n := len(p.Base.Keys("customers")); n != 50 {
		t.Errorf("%d customers", n)
	}
	if n := len(p.Base.Keys("tickets")); n != 200 {
		t.Errorf("%d tickets", n)
	}
	for _, f := range []string{"domain.yaml", "policy.md", "tools.json", "handlers.star", "generator.star"} {
		if len(p.Files[f]) == 0 {
			t.Errorf("Files lacks %s", f)
		}
	}

	// A customer authenticates, reads, and writes through the handlers.
	ctx := context.Background()
	st := p.Base.NewState()
	c0, _ := p.Base.Get("customers", "C0001")
	email := c0.(map[string]any)["email"].(string)
	if r := p.Tools.Call(ctx, st, "find_customer_by_email", `{"email": "`+strings.ToUpper(email)+`"}`); r.Output != "C0001" {
		t.Fatalf("find_customer_by_email: %s", r.Output)
	}
	var open string
	for _, k := range p.Base.Keys("tickets") {
		v, _ := p.Base.Get("tickets", k)
		if v.(map[string]any)["status"] == "open" {
			open = k
			break
		}
	}
	r := p.Tools.Call(ctx, st, "close_ticket", `{"ticket_id": "`+open+`", "resolution": "fixed"}`)
	if r.Err || !strings.Contains(r.Output, `"status":"closed"`) || !strings.Contains(r.Output, `"updated_at":"2025-03-14T15:00:00Z"`) {
		t.Fatalf("close_ticket: %s", r.Output)
	}
	if r := p.Tools.Call(ctx, st, "close_ticket", `{"ticket_id": "`+open+`", "resolution": "again"}`); r.Output != "Error: ticket "+open+" is closed" {
		t.Errorf("second close: %s", r.Output)
	}
	if r := p.Tools.Call(ctx, st, "update_ticket_priority", `{"ticket_id": "`+open+`", "priority": "asap"}`); !strings.HasPrefix(r.Output, "Error: arguments of update_ticket_priority do not match its schema") {
		t.Errorf("bad enum: %s", r.Output)
	}
}

// TestGeneratorDeterministic: the same seed gives the same database,
// another seed a different one.
func TestGeneratorDeterministic(t *testing.T) {
	dir := initPack(t)
	hash := func(seed uint64) string {
		p, err := LoadDir(context.Background(), dir, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p.Base.Hash()
	}
	a, b, c := hash(7), hash(7), hash(8)
	if a != b {
		t.Errorf("seed 7 gave two databases")
	}
	if a == c {
		t.Errorf("seeds 7 and 8 gave one database")
	}
}

func TestInitRefuses(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	if err := Init(dir, "ok"); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("non-empty folder: %v", err)
	}
	if err := Init(filepath.Join(t.TempDir(), "x"), "Bad Name"); err == nil || !strings.Contains(err.Error(), "--name") {
		t.Errorf("bad name: %v", err)
	}
	empty := t.TempDir()
	if err := Init(empty, "named"); err != nil {
		t.Fatalf("empty folder: %v", err)
	}
	p, err := LoadDir(context.Background(), empty, 1, Options{})
	if err != nil || p.Manifest.Name != "named" {
		t.Errorf("named pack: %v", err)
	}
}

// TestRandom checks the generator's random object: ranges, determinism,
// and that a frozen one refuses to draw.
func TestRandom(t *testing.T) {
	gen := `
def generate(seed):
    r = random(seed)
    ints = [r.randint(1, 3) for _ in range(300)]
    floats = [r.random() for _ in range(300)]
    s = r.shuffle([1, 2, 3, 4, 5])
    return {"items": {"a": {
        "id": "a",
        "ints_ok": min(ints) == 1 and max(ints) == 3,
        "floats_ok": min(floats) >= 0 and max(floats) < 1,
        "shuffle": sorted(s) == [1, 2, 3, 4, 5],
        "sample": len(r.sample([1, 2, 3, 4, 5], 3)) == 3,
        "choice": r.choice(["x", "y"]) in ["x", "y"],
        "first": r.randint(0, 1000000),
        "string_seed": random("abc").randint(0, 1000000) == random("abc").randint(0, 1000000),
    }}}
`
	fsys := fstest.MapFS{
		"domain.yaml":    {Data: []byte(miniManifest)},
		"policy.md":      {Data: []byte("p\n")},
		"tools.json":     {Data: []byte(miniTools("f"))},
		"handlers.star":  {Data: []byte("def f(db, args):\n    return 1\n")},
		"generator.star": {Data: []byte(gen)},
	}
	rec := func(seed uint64) map[string]any {
		p, err := Load(context.Background(), fsys, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		v, _ := p.Base.Get("items", "a")
		return v.(map[string]any)
	}
	a := rec(3)
	for _, k := range []string{"ints_ok", "floats_ok", "shuffle", "sample", "choice", "string_seed"} {
		if a[k] != true {
			t.Errorf("%s: %v", k, a[k])
		}
	}
	if b := rec(3); b["first"] != a["first"] {
		t.Errorf("seed 3 drew %v then %v", a["first"], b["first"])
	}
	if c := rec(4); c["first"] == a["first"] {
		t.Errorf("seeds 3 and 4 drew the same %v", a["first"])
	}

	frozen := "R = random(1)\n\ndef generate(seed):\n    return {\"items\": {\"a\": {\"id\": \"a\", \"n\": R.randint(1, 2)}}}\n"
	fsys["generator.star"] = &fstest.MapFile{Data: []byte(frozen)}
	probs := Validate(context.Background(), fsys, Options{})
	if len(probs) != 1 || !strings.Contains(probs[0].String(), "generator.star:4: generate(1) failed at generator.star:4:") || !strings.Contains(probs[0].Message, "frozen") {
		t.Errorf("frozen random: %v", probs)
	}
}
