package tau2

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// The reference: ../shared/tau2 (or $SYNTH_TAU2_DIR) holds τ²'s data and
// oracle.py, which runs τ²'s own tool code. Tests that need it skip,
// saying why, when it or python3 with pydantic 2 is missing.

func tau2Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("SYNTH_TAU2_DIR"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "oracle.py")); err != nil {
			t.Skipf("SYNTH_TAU2_DIR=%s has no oracle.py: %v", d, err)
		}
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Skipf("cannot find ../shared/tau2: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test directory; cannot find ../shared/tau2 (set SYNTH_TAU2_DIR)")
		}
		dir = parent
	}
	d := filepath.Join(dir, "..", "shared", "tau2")
	if _, err := os.Stat(filepath.Join(d, "oracle.py")); err != nil {
		t.Skipf("τ²'s reference data is not at %s (it lives outside the repo, in ../shared/tau2; or set SYNTH_TAU2_DIR): %v", d, err)
	}
	return d
}

var pythonOnce struct {
	sync.Once
	version string // pydantic's, "" when unusable
	why     string
}

// needPython skips unless python3 with pydantic 2 runs; it returns
// pydantic's major.minor version.
func needPython(t testing.TB) string {
	t.Helper()
	pythonOnce.Do(func() {
		out, err := exec.Command("python3", "-c", "import pydantic; print(pydantic.VERSION)").CombinedOutput()
		v := strings.TrimSpace(string(out))
		switch {
		case err != nil:
			pythonOnce.why = fmt.Sprintf("python3 with pydantic is not available (%v: %s)", err, v)
		case !strings.HasPrefix(v, "2."):
			pythonOnce.why = "pydantic " + v + " is installed; the oracle needs pydantic 2"
		default:
			parts := strings.SplitN(v, ".", 3)
			pythonOnce.version = parts[0] + "." + parts[1]
		}
	})
	if pythonOnce.version == "" {
		t.Skip("skipping the comparison with τ²'s oracle: " + pythonOnce.why)
	}
	return pythonOnce.version
}

// oracleCall is one line of a calls file; Args is the JSON text the Go
// side parses too, so both read the same literals in the same order.
type oracleCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"arguments"`
}

type oracleOut struct {
	Results []string        `json:"results"`
	DB      json.RawMessage `json:"db"`
}

// runOracle runs oracle.py once over a whole batch of calls on τ²'s
// own database.
func runOracle(t testing.TB, domain string, calls []oracleCall) oracleOut {
	t.Helper()
	return runOracleOn(t, domain, filepath.Join(tau2Dir(t), domain, "db.json"), calls)
}

// runOracleOn runs oracle.py once over a whole batch of calls on the
// db.json at dbPath.
func runOracleOn(t testing.TB, domain, dbPath string, calls []oracleCall) oracleOut {
	t.Helper()
	dir := tau2Dir(t)
	needPython(t)
	f := filepath.Join(t.TempDir(), "calls.json")
	b, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", filepath.Join(dir, "oracle.py"), domain, dbPath, f)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle.py %s: %v\n%s", domain, err, stderr.String())
	}
	var res oracleOut
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("oracle.py output: %v", err)
	}
	if len(res.Results) != len(calls) {
		t.Fatalf("oracle.py answered %d calls of %d", len(res.Results), len(calls))
	}
	return res
}

type taskLine struct {
	TaskID  string   `json:"task_id"`
	Results []string `json:"results"`
	SHA     string   `json:"db_sha256"`
}

// runOracleTasks replays every task's actions in oracle.py, each on a
// fresh copy of the database.
func runOracleTasks(t testing.TB, domain, tasksFile string) []taskLine {
	t.Helper()
	dir := tau2Dir(t)
	needPython(t)
	cmd := exec.Command("python3", filepath.Join(dir, "oracle.py"), domain, filepath.Join(dir, domain, "db.json"), "--tasks", tasksFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle.py %s --tasks: %v\n%s", domain, err, stderr.String())
	}
	var lines []taskLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var l taskLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("oracle.py --tasks line: %v", err)
		}
		lines = append(lines, l)
	}
	return lines
}

// env is a domain ready to call: τ²'s tools over the checked database.
type env struct {
	domain string
	kit    *tools.Toolkit
	base   *tools.Base
	colls  []string
	// texts holds the canonical text of base records a state still
	// shares (coll + "\x00" + key → text): every task's final database
	// is hashed, and rewriting the whole database each time was most of
	// these tests' time.
	texts sync.Map
}

var envCache sync.Map // domain → *env; building one imports τ²'s folder

// packDir is where the tests' imported packs live (TestMain removes it).
var packDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tau2-packs-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	packDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testTemplates are the built-in packs the importer starts from, read
// from their folders (importing their packages here would be a cycle).
func testTemplates() map[string]fs.FS {
	return map[string]fs.FS{"airline": os.DirFS(filepath.Join("..", "airline")), "retail": os.DirFS(filepath.Join("..", "retail"))}
}

// testOptions are the pack options domains.PackOptions gives.
func testOptions() pack.Options {
	return pack.Options{
		Builtins:  map[string]pack.HandlerSet{"tau2-retail": RetailHandlers(), "tau2-airline": AirlineHandlers()},
		Databases: map[string]pack.DatabaseReader{"tau2-retail": ReadRetailDB, "tau2-airline": ReadAirlineDB},
	}
}

// loadEnv imports τ²'s domain folder as a pack and loads it as synth
// does: the fidelity tests hold what import-tau2 makes to the oracle.
func loadEnv(t testing.TB, domain string) *env {
	t.Helper()
	if e, ok := envCache.Load(domain); ok {
		return e.(*env)
	}
	out := filepath.Join(packDir, domain)
	if _, err := os.Stat(out); err != nil {
		if _, err := Import(context.Background(), ImportOptions{Dir: filepath.Join(tau2Dir(t), domain), Out: out, Templates: testTemplates(), Pack: testOptions()}); err != nil {
			t.Fatalf("import τ²'s %s: %v", domain, err)
		}
	}
	p, err := pack.LoadDir(context.Background(), out, 1, testOptions())
	if err != nil {
		t.Fatalf("load the imported %s pack: %v", domain, err)
	}
	e := &env{domain: domain, base: p.Base, kit: p.Tools, colls: domainCollections[domain]}
	envCache.Store(domain, e)
	return e
}

// toolkitOf compiles a tools.json with a handler set, as a pack does.
func toolkitOf(t testing.TB, spec []byte, set map[string]tools.Handler) *tools.Toolkit {
	t.Helper()
	var defs []struct {
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Kind        string         `json:"x-kind"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(spec, &defs); err != nil {
		t.Fatal(err)
	}
	var list []*tools.Tool
	for _, d := range defs {
		f := d.Function
		list = append(list, &tools.Tool{Name: f.Name, Description: f.Description, Kind: f.Kind, Parameters: f.Parameters, Handler: set[f.Name]})
	}
	kit, err := tools.NewToolkit(list)
	if err != nil {
		t.Fatal(err)
	}
	return kit
}

// dumpState is the episode's database without OrderCollection.
func (e *env) dumpState(st *tools.State) map[string]any {
	out := make(map[string]any, len(e.colls))
	for _, c := range e.colls {
		recs := map[string]any{}
		for _, k := range st.Keys(c) {
			v, _ := st.Get(c, k)
			recs[k] = v
		}
		out[c] = recs
	}
	return out
}

// pyCanonical writes v as json.dumps(v, sort_keys=True, separators=(",",
// ":"), ensure_ascii=False) does: the text the oracle hashes. Floats are
// written as Python writes them, so an int where τ² has a float shows.
func pyCanonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		b.WriteString(pyJSONText(x))
	case float64:
		b.WriteString(pyFloat(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int:
		b.WriteString(strconv.Itoa(x))
	case json.Number:
		b.WriteString(string(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			pyCanonical(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(pyJSONText(k))
			b.WriteByte(':')
			pyCanonical(b, x[k])
		}
		b.WriteByte('}')
	default:
		// Handler results that are Go structs: through their JSON.
		raw, err := json.Marshal(x)
		if err != nil {
			b.WriteString("<unmarshalable>")
			return
		}
		pyCanonical(b, decodeJSON(raw))
	}
}

// pyJSONText is a JSON string as json.dumps writes it with ensure_ascii
// false: only the quote, the backslash and control characters escaped.
func pyJSONText(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// stateSHA is canonicalSHA(e.dumpState(st)), reusing the text of every
// record st shares with the base.
func (e *env) stateSHA(st *tools.State) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, c := range slices.Sorted(slices.Values(e.colls)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(pyJSONText(c))
		b.WriteString(":{")
		keys := slices.Clone(st.Keys(c))
		sort.Strings(keys)
		for j, k := range keys {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(pyJSONText(k))
			b.WriteByte(':')
			v, _ := st.Get(c, k)
			bv, _ := e.base.Get(c, k)
			if !sameRecord(v, bv) {
				pyCanonical(&b, v)
				continue
			}
			id := c + "\x00" + k
			if t, ok := e.texts.Load(id); ok {
				b.WriteString(t.(string))
				continue
			}
			var rb strings.Builder
			pyCanonical(&rb, v)
			e.texts.Store(id, rb.String())
			b.WriteString(rb.String())
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// sameRecord reports whether two records are one held by reference (a
// map or a pointer), which a state never changes in place.
func sameRecord(a, b any) bool {
	if a == nil || b == nil {
		return false
	}
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	switch ra.Kind() {
	case reflect.Map, reflect.Pointer:
		return ra.Kind() == rb.Kind() && ra.Pointer() == rb.Pointer()
	}
	return false
}

func canonicalSHA(v any) string {
	var b strings.Builder
	pyCanonical(&b, v)
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

func decodeJSON(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil
	}
	return v
}

// jsonDiff compares two JSON values (numbers by value, 3 == 3.0) and
// returns the path of the first difference, "" when equal.
func jsonDiff(a, b any, path string) string {
	a, b = normNum(a), normNum(b)
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return path + " (object vs " + kindOf(b) + ")"
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			xv, okx := x[k]
			yv, oky := y[k]
			if okx != oky {
				return fmt.Sprintf("%s.%s (present on one side only)", path, k)
			}
			if d := jsonDiff(xv, yv, path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			return path + " (list vs " + kindOf(b) + ")"
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s (length %d vs %d)", path, len(x), len(y))
		}
		for i := range x {
			if d := jsonDiff(x[i], y[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case *big.Rat:
		y, ok := b.(*big.Rat)
		if !ok || x.Cmp(y) != 0 {
			return fmt.Sprintf("%s (%v vs %v)", path, a, b)
		}
		return ""
	}
	if a != b {
		return fmt.Sprintf("%s (%v vs %v)", path, short(a), short(b))
	}
	return ""
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "list"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func normNum(v any) any {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		s = strconv.FormatInt(x, 10)
	case int:
		s = strconv.Itoa(x)
	default:
		return v
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return v
	}
	return r
}

// resultDiff compares a Go result with the oracle's: JSON objects and
// lists as JSON values, anything else (plain strings, numbers τ² wrote
// with str(), errors) as exact text. The URL in pydantic's messages
// carries the version of the oracle's pydantic; another version than
// pydanticDocs is read as ours.
func resultDiff(got, want, pydVersion string) string {
	if pydVersion != pydanticDocs {
		want = strings.ReplaceAll(want, "errors.pydantic.dev/"+pydVersion+"/", "errors.pydantic.dev/"+pydanticDocs+"/")
	}
	if t := strings.TrimSpace(want); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		w, g := decodeJSON([]byte(want)), decodeJSON([]byte(got))
		if w != nil && g != nil {
			return jsonDiff(g, w, "$")
		}
	}
	if got != want {
		return fmt.Sprintf("got %q, want %q", clip(got), clip(want))
	}
	return ""
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// replay runs calls on a fresh state through the toolkit, as an agent's
// calls run.
func (e *env) replay(t testing.TB, calls []oracleCall) ([]tools.Result, *tools.State) {
	t.Helper()
	st := e.base.NewState()
	out := make([]tools.Result, len(calls))
	for i, c := range calls {
		out[i] = e.kit.Call(context.Background(), st, c.Name, string(c.Args))
	}
	return out, st
}

// sortedKeys is a test helper for stable iteration.
func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
