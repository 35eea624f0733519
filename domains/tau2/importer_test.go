package tau2

import (
	"context"
	"encoding/json"
	"go.yaml.in/yaml/v3"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/pack"
)

// folder writes a τ²-like domain folder: name → content ("" = absent).
func folder(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, body := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const okPolicy = "# Retail agent policy\n"

// TestImportRefuses: folders that are not τ² domains, and databases that
// do not match τ²'s model, are refused naming the file and the field;
// nothing is written.
func TestImportRefuses(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"empty folder", nil, []string{"is not a τ²-bench domain folder", "no db.json, policy.md, tasks.json", "holds nothing"}},
		{"no db.json", map[string]string{"policy.md": okPolicy, "tasks.json": "[]", "README.md": "hi"}, []string{"no db.json", "README.md"}},
		{"db.json not JSON", map[string]string{"db.json": `{"users": {`, "policy.md": okPolicy, "tasks.json": "[]"}, []string{"db.json", "not valid JSON"}},
		{"db.json a list", map[string]string{"db.json": `[1, 2]`, "policy.md": okPolicy, "tasks.json": "[]"}, []string{"db.json", "top level must be an object"}},
		{"unknown domain", map[string]string{"db.json": `{"lines": {}, "plans": {}}`, "policy.md": okPolicy, "tasks.json": "[]"}, []string{"db.json", "collections lines, plans are neither", "retail", "airline"}},
		{"retail's name, other collections", map[string]string{"db.json": `{"users": {}, "flights": {}}`, "policy.md": okPolicy, "tasks.json": "[]"}, []string{"db.json", "τ²'s retail database has the collections products, users, orders; this one has flights, users"}},
		{"model mismatch", map[string]string{
			"db.json":    `{"products": {}, "users": {"u1": {"user_id": "u1", "name": {"first_name": "A"}}}, "orders": {}}`,
			"policy.md":  okPolicy,
			"tasks.json": "[]",
		}, []string{"db.json", "does not match τ²'s retail model", "users[\"u1\"]"}},
		{"tasks not a list", map[string]string{"db.json": `{"products": {}, "users": {}, "orders": {}}`, "policy.md": okPolicy, "tasks.json": `{"id": 1}`}, []string{"tasks.json", "not τ²'s task list"}},
		{"task without id", map[string]string{"db.json": `{"products": {}, "users": {}, "orders": {}}`, "policy.md": okPolicy, "tasks.json": `[{"evaluation_criteria": {"actions": []}}]`}, []string{"tasks.json", "task 0 has no id"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := "retail"
			if tc.name == "unknown domain" {
				name = "telecom"
			}
			dir := folder(t, name, tc.files)
			out := filepath.Join(t.TempDir(), "pack")
			_, err := Import(context.Background(), ImportOptions{Dir: dir, Out: out, Templates: testTemplates(), Pack: testOptions()})
			if err == nil {
				t.Fatal("the import succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a refused import left %s", out)
			}
		})
	}
}

// TestImportKeepsOthersFiles: a symbolic link in the folder is not
// followed, and an out folder holding anything is refused untouched.
func TestImportKeepsOthersFiles(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(secret, []byte(`{"products": {}, "users": {}, "orders": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := folder(t, "retail", map[string]string{"policy.md": okPolicy, "tasks.json": "[]"})
	if err := os.Symlink(secret, filepath.Join(dir, "db.json")); err != nil {
		t.Fatal(err)
	}
	_, err := Import(context.Background(), ImportOptions{Dir: dir, Out: filepath.Join(t.TempDir(), "p"), Templates: testTemplates(), Pack: testOptions()})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a symlinked db.json: %v", err)
	}

	good := folder(t, "retail", map[string]string{"db.json": `{"products": {}, "users": {}, "orders": {}}`, "policy.md": okPolicy, "tasks.json": "[]"})
	out := t.TempDir()
	mine := filepath.Join(out, "notes.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Import(context.Background(), ImportOptions{Dir: good, Out: out, Templates: testTemplates(), Pack: testOptions()})
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("import into a folder holding a file: %v", err)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" {
		t.Errorf("the user's file was touched: %q, %v", b, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".synth-import-") {
			t.Errorf("left %s behind", e.Name())
		}
	}
}

// TestImportPack: the packs made of τ²'s folders load, keep τ²'s files as
// they are, and hold out exactly the tasks whose gold actions write.
func TestImportPack(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			src := filepath.Join(tau2Dir(t), domain)
			out := filepath.Join(t.TempDir(), domain)
			res, err := Import(context.Background(), ImportOptions{Dir: src, Out: out, Templates: testTemplates(), Pack: testOptions()})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"db.json", "policy.md"} {
				a, _ := os.ReadFile(filepath.Join(src, f))
				b, _ := os.ReadFile(filepath.Join(out, f))
				if string(a) != string(b) || len(a) == 0 {
					t.Errorf("%s is not τ²'s as it is", f)
				}
			}
			p, err := pack.LoadDir(context.Background(), out, 1, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			if p.Manifest.Name != "tau2-"+domain || p.Manifest.Handlers != "builtin:tau2-"+domain {
				t.Errorf("manifest %s handlers %s", p.Manifest.Name, p.Manifest.Handlers)
			}
			// Every figure the built-in's policy has stated before a yes,
			// the import states too: both read τ²'s same sentences.
			raw, err := os.ReadFile(filepath.Join("..", domain, "domain.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var tmpl struct{ Rules []pack.Rule }
			if err := yaml.Unmarshal(raw, &tmpl); err != nil {
				t.Fatal(err)
			}
			if want, got := disclosed(tmpl.Rules), disclosed(p.Manifest.Rules); len(want) == 0 || !slices.Equal(want, got) {
				t.Errorf("the import discloses figures of %v, the built-in %s of %v", got, domain, want)
			}
			writing := 0
			// The pack's task mix is τ²'s tasks by their number of writes.
			sizes := make([]float64, pack.MaxTaskWrites)
			for _, tk := range loadTasks(t, domain) {
				n := 0
				for _, c := range tk.calls() {
					if p.Tools.Kind(c.Name) == "write" {
						n++
					}
				}
				if n > 0 {
					writing++
				}
				sizes[min(n, len(sizes)-1)]++
			}
			if got := p.Manifest.Tasks.WriteWeights; !slices.Equal(got, sizes) {
				t.Errorf("tasks.write_weights %v, τ²'s tasks make %v", got, sizes)
			}
			if len(p.Holdout) != writing || res.Holdout != writing {
				t.Errorf("%d tasks held out (reported %d), %d of τ²'s tasks write", len(p.Holdout), res.Holdout, writing)
			}
			h := pack.NewHoldout(p.Holdout)
			for _, ho := range p.Holdout {
				// A held-out task matches itself, with its list reordered.
				calls := append([]pack.Call(nil), ho.Writes...)
				for i, j := 0, len(calls)-1; i < j; i, j = i+1, j-1 {
					calls[i], calls[j] = calls[j], calls[i]
				}
				if _, ok := h.Match(calls); !ok {
					raw, _ := json.Marshal(calls)
					t.Errorf("task %s does not match its own writes %s", ho.ID, raw)
				}
			}
		})
	}
}

// heldOut counts τ²'s tasks by their number of writes, a task of more
// than five in the last count, and holds out only those that write.
func TestHeldOutSizes(t *testing.T) {
	tasks := `[
	{"id": "0", "evaluation_criteria": {"actions": [{"name": "get_user_details", "arguments": {}}]}},
	{"id": "1", "evaluation_criteria": {"actions": [{"name": "cancel_reservation", "arguments": {"reservation_id": "A"}}]}},
	{"id": "2", "evaluation_criteria": {"actions": [` + strings.Repeat(`{"name": "cancel_reservation", "arguments": {}},`, 6) + `{"name": "send_certificate", "arguments": {}}]}}
	]`
	writes := map[string]bool{"cancel_reservation": true, "send_certificate": true}
	held, n, sizes, err := heldOut([]byte(tasks), writes)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 1, 0, 0, 0, 1}; n != 3 || len(held) != 2 || !slices.Equal(sizes, want) {
		t.Errorf("%d tasks, %d held out, sizes %v; want 3, 2, %v", n, len(held), sizes, want)
	}
}

// disclosed lists the tools whose figures rules say before the yes.
func disclosed(rules []pack.Rule) []string {
	var out []string
	for _, r := range rules {
		if r.Kind == pack.RuleDisclose {
			out = append(out, r.Tool)
		}
	}
	slices.Sort(out)
	return out
}
