package tau2

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/synth-data/synth/pack"
)

func toolNames(t *testing.T, spec []byte) []string {
	t.Helper()
	var defs []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(spec, &defs); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range defs {
		names = append(names, d.Function.Name)
	}
	return names
}

// TestToolsMatchHandlers: every tool of tools.json has a handler and the
// other way round, and the kinds add up as τ²'s do.
func TestToolsMatchHandlers(t *testing.T) {
	for _, c := range []struct {
		name   string
		spec   []byte
		set    pack.HandlerSet
		n      int
		counts map[string]int
	}{
		{"retail", RetailTools(), RetailHandlers(), 16, map[string]int{"read": 7, "write": 7, "generic": 2}},
		{"airline", AirlineTools(), AirlineHandlers(), 14, map[string]int{"read": 6, "write": 6, "generic": 2}},
	} {
		names := toolNames(t, c.spec)
		if len(names) != c.n {
			t.Errorf("%s: %d tools, want %d", c.name, len(names), c.n)
		}
		if got := sortedKeys(c.set); !slices.Equal(got, slices.Sorted(slices.Values(names))) {
			t.Errorf("%s: handlers %v, tools %v", c.name, got, names)
		}
		kit := toolkitOf(t, c.spec, c.set)
		counts := map[string]int{}
		for _, tl := range kit.Tools() {
			counts[tl.Kind]++
		}
		for k, n := range c.counts {
			if counts[k] != n {
				t.Errorf("%s: %d %s tools, want %d", c.name, counts[k], k, n)
			}
		}
	}
}

// TestToolsAsTau2BuildsThem rebuilds the tools arrays from τ²'s tool code
// the way τ²'s Tool does and compares them with the embedded ones. With
// docstring_parser (which τ² uses for descriptions) everything is
// compared; without it, everything but the descriptions.
func TestToolsAsTau2BuildsThem(t *testing.T) {
	dir := tau2Dir(t)
	needPython(t)
	docs := exec.Command("python3", "-c", "import docstring_parser").Run() == nil
	if !docs {
		t.Log("docstring_parser is not importable: comparing the tools without their descriptions")
	}
	for _, c := range []struct {
		domain string
		spec   []byte
	}{{"retail", RetailTools()}, {"airline", AirlineTools()}} {
		args := []string{filepath.Join("testdata", "tau2_tools.py"), filepath.Join(dir, "oracle.py"), c.domain}
		if !docs {
			args = append(args, "--no-docs")
		}
		cmd := exec.Command("python3", args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tau2_tools.py: %v\n%s", err, stderr.String())
		}
		want := decodeJSON(out)
		got := decodeJSON(c.spec)
		if !docs {
			stripDescriptions(got)
			stripDescriptions(want)
		}
		if d := jsonDiff(got, want, c.domain); d != "" {
			t.Errorf("%s tools.json differs from what τ² builds at %s", c.domain, d)
		}
	}
}

// stripDescriptions drops the descriptions docstrings give: the
// function's and its parameters' (the models' own stay).
func stripDescriptions(v any) {
	for _, e := range v.([]any) {
		fn := e.(map[string]any)["function"].(map[string]any)
		fn["description"] = ""
		props, _ := fn["parameters"].(map[string]any)["properties"].(map[string]any)
		for _, p := range props {
			delete(p.(map[string]any), "description")
		}
	}
}

// TestPackLoads builds a pack the way import-tau2 is meant to (checked
// database plus key order, τ²'s tools.json, the handler set named
// builtin) and runs a call through pack.Load's toolkit.
func TestPackLoads(t *testing.T) {
	data := []byte(miniRetail)
	db, err := CheckRetailDB(data)
	if err != nil {
		t.Fatal(err)
	}
	order, err := KeyOrder(data)
	if err != nil {
		t.Fatal(err)
	}
	full := map[string]any{OrderCollection: order}
	for k, v := range db {
		full[k] = v
	}
	manifest := `name: tau2-retail
version: "1"
clock: "2024-05-15T15:00:00Z"
collections:
  products:
    key: product_id
  users:
    key: user_id
  orders:
    key: order_id
  ` + OrderCollection + `:
    key: collection
handlers: builtin:tau2-retail
`
	fsys := fstest.MapFS{
		"domain.yaml": {Data: []byte(manifest)},
		"policy.md":   {Data: []byte("τ²'s retail policy.\n")},
		"tools.json":  {Data: RetailTools()},
		"db.json":     {Data: mustJSON(t, full)},
	}
	p, err := pack.Load(context.Background(), fsys, 1, pack.Options{Builtins: map[string]pack.HandlerSet{"tau2-retail": RetailHandlers()}})
	if err != nil {
		t.Fatalf("the pack does not load: %v", err)
	}
	st := p.Base.NewState()
	res := p.Tools.Call(context.Background(), st, "cancel_pending_order", `{"order_id": "#W1", "reason": "ordered by mistake"}`)
	if res.Err {
		t.Fatalf("cancel: %s", res.Output)
	}
	u, _ := st.Get("users", "u1")
	bal := u.(map[string]any)["payment_methods"].(map[string]any)["gift_card_1"].(map[string]any)["balance"]
	if f, _ := toFloat(bal); f != 110.5 {
		t.Errorf("gift card balance after the refund = %v, want 110.5", bal)
	}
	if got := p.Tools.Call(context.Background(), st, "find_user_id_by_email", `{"email": "A@B"}`); got.Output != "u1" {
		t.Errorf("find_user_id_by_email = %+v", got)
	}
}
