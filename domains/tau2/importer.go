package tau2

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/synth-data/synth/internal/realpath"
	"github.com/synth-data/synth/pack"
)

// The files of a τ²-bench domain folder (data/tau2/domains/NAME).
const (
	dbFile     = "db.json"
	policyFile = "policy.md"
	tasksFile  = "tasks.json"
)

// HoldoutFile is the pack file holding τ²'s tasks' writes.
const HoldoutFile = "holdout.json"

// Limits on what an import reads: τ²'s airline db.json is about 10 MiB.
const (
	maxDBBytes     = 256 << 20
	maxPolicyBytes = 1 << 20
	maxTasksBytes  = 64 << 20
)

// Domains are the τ² domains synth imports, by the name of their folder.
var domainCollections = map[string][]string{
	"retail":  {"products", "users", "orders"},
	"airline": {"flights", "users", "reservations"},
}

// ReadRetailDB reads a τ² retail db.json for the handlers: the database
// in model_dump form (CheckRetailDB) with its key order (KeyOrder) under
// OrderCollection.
func ReadRetailDB(data []byte) (map[string]map[string]any, error) {
	return readDB(data, CheckRetailDB)
}

// ReadAirlineDB is ReadRetailDB for τ²'s airline.
func ReadAirlineDB(data []byte) (map[string]map[string]any, error) {
	return readDB(data, CheckAirlineDB)
}

func readDB(data []byte, check func([]byte) (map[string]map[string]any, error)) (map[string]map[string]any, error) {
	db, err := check(data)
	if err != nil {
		return nil, err
	}
	order, err := KeyOrder(data)
	if err != nil {
		return nil, err
	}
	db[OrderCollection] = order
	return db, nil
}

// ImportOptions say what to import and how to check the result.
type ImportOptions struct {
	// Dir is a τ²-bench domain folder; Out the pack folder to make (new,
	// or empty).
	Dir, Out string
	// Templates are the built-in packs to start from, by domain: the
	// domain.yaml whose collections, users and hints describe τ²'s data
	// model, and the policy code it names (policy_code:), which the
	// imported pack carries too.
	Templates map[string]fs.FS
	// Pack loads the new pack before it is placed, so a broken one is
	// never written.
	Pack pack.Options
}

// Imported describes an imported pack.
type Imported struct {
	Domain  string
	Records map[string]int // records per collection
	Tasks   int            // τ² tasks read
	Holdout int            // tasks whose writes are held out
}

// Import makes a pack of a τ²-bench domain folder: τ²'s db.json and
// policy as they are, τ²'s tools, the built-in handlers that answer as
// τ²'s do, and holdout.json with the writes of τ²'s tasks, which
// generation never reproduces. Files are read only inside Dir, and the
// pack is written to a temporary folder beside Out and renamed into
// place once it loads.
func Import(ctx context.Context, o ImportOptions) (*Imported, error) {
	root, err := os.OpenRoot(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("τ² domain folder %s: %w", o.Dir, err)
	}
	defer root.Close()
	files, err := readFolder(root, o.Dir)
	if err != nil {
		return nil, err
	}
	domain, err := detect(o.Dir, files[dbFile])
	if err != nil {
		return nil, err
	}
	read, spec := ReadRetailDB, RetailTools()
	if domain == "airline" {
		read, spec = ReadAirlineDB, AirlineTools()
	}
	db, err := read(files[dbFile])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(o.Dir, dbFile), err)
	}
	writes, err := writeTools(spec)
	if err != nil {
		return nil, err
	}
	holdout, ntasks, sizes, err := heldOut(files[tasksFile], writes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(o.Dir, tasksFile), err)
	}
	tmplFS, ok := o.Templates[domain]
	if !ok {
		return nil, fmt.Errorf("no built-in pack to start τ²'s %s domain from", domain)
	}
	tmpl, code, err := templateFiles(tmplFS, domain)
	if err != nil {
		return nil, err
	}
	man, err := manifestFor(tmpl, domain, o.Dir, db, sizes)
	if err != nil {
		return nil, err
	}
	hold, err := json.MarshalIndent(holdout, "", "  ")
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{
		pack.ManifestFile: man,
		dbFile:            files[dbFile],
		policyFile:        files[policyFile],
		"tools.json":      spec,
		HoldoutFile:       append(hold, '\n'),
	}
	maps.Copy(out, code)
	load := func(dir string) error {
		if _, err := pack.LoadDir(ctx, dir, 1, o.Pack); err != nil {
			return fmt.Errorf("the imported pack does not load (a bug in synth's %s template; please report it): %w", domain, err)
		}
		return nil
	}
	if err := place(o.Out, out, load); err != nil {
		return nil, err
	}
	res := &Imported{Domain: domain, Records: map[string]int{}, Tasks: ntasks, Holdout: len(holdout)}
	for _, c := range domainCollections[domain] {
		res.Records[c] = len(db[c])
	}
	return res, nil
}

// templateFiles reads a built-in pack's domain.yaml and the policy code
// it names, by file name.
func templateFiles(fsys fs.FS, domain string) ([]byte, map[string][]byte, error) {
	tmpl, err := fs.ReadFile(fsys, pack.ManifestFile)
	if err != nil {
		return nil, nil, fmt.Errorf("the built-in %s pack: %w", domain, err)
	}
	var head struct {
		PolicyCode string `yaml:"policy_code"`
	}
	if err := yaml.Unmarshal(tmpl, &head); err != nil {
		return nil, nil, fmt.Errorf("the built-in %s pack's %s: %w", domain, pack.ManifestFile, err)
	}
	code := map[string][]byte{}
	if head.PolicyCode != "" {
		data, err := fs.ReadFile(fsys, head.PolicyCode)
		if err != nil {
			return nil, nil, fmt.Errorf("the built-in %s pack: %w", domain, err)
		}
		code[head.PolicyCode] = data
	}
	return tmpl, code, nil
}

// readFolder reads the files of a τ² domain folder, each a regular file
// inside it.
func readFolder(root *os.Root, dir string) (map[string][]byte, error) {
	limits := map[string]int64{dbFile: maxDBBytes, policyFile: maxPolicyBytes, tasksFile: maxTasksBytes}
	out := map[string][]byte{}
	var missing []string
	for _, name := range []string{dbFile, policyFile, tasksFile} {
		info, err := root.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, name)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
		if !info.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file (a symbolic link or a folder); synth reads only the files of the domain folder itself", filepath.Join(dir, name))
		}
		f, err := root.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
		data, err := io.ReadAll(io.LimitReader(f, limits[name]+1))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
		if int64(len(data)) > limits[name] {
			return nil, fmt.Errorf("%s: larger than %d MiB, far beyond τ²'s own; is this the right file?", filepath.Join(dir, name), limits[name]>>20)
		}
		out[name] = data
	}
	if len(missing) > 0 {
		have := folderNames(root)
		return nil, fmt.Errorf("%s is not a τ²-bench domain folder: it has no %s (it holds %s); give data/tau2/domains/retail or data/tau2/domains/airline of a τ²-bench checkout", dir, strings.Join(missing, ", "), have)
	}
	return out, nil
}

func folderNames(root *os.Root) string {
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil || len(entries) == 0 {
		return "nothing"
	}
	var names []string
	for i, e := range entries {
		if i == 8 {
			names = append(names, fmt.Sprintf("and %d more", len(entries)-i))
			break
		}
		names = append(names, e.Name())
	}
	return strings.Join(names, ", ")
}

// detect tells retail from airline by db.json's collections.
func detect(dir string, data []byte) (string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return "", fmt.Errorf("%s: not valid JSON at byte %d: %v", filepath.Join(dir, dbFile), se.Offset, err)
		}
		return "", fmt.Errorf("%s: the top level must be an object of collections: %v", filepath.Join(dir, dbFile), err)
	}
	keys := slices.Sorted(maps.Keys(top))
	for _, domain := range slices.Sorted(maps.Keys(domainCollections)) {
		want := slices.Sorted(slices.Values(domainCollections[domain]))
		if slices.Equal(keys, want) {
			return domain, nil
		}
	}
	for _, domain := range slices.Sorted(maps.Keys(domainCollections)) {
		// Named like a known domain but its collections are off: say which.
		if filepath.Base(filepath.Clean(dir)) == domain {
			return "", fmt.Errorf("%s: τ²'s %s database has the collections %s; this one has %s", filepath.Join(dir, dbFile), domain, strings.Join(domainCollections[domain], ", "), strings.Join(keys, ", "))
		}
	}
	return "", fmt.Errorf("%s: collections %s are neither τ²'s retail (products, users, orders) nor its airline (flights, users, reservations); synth imports those two domains", filepath.Join(dir, dbFile), strings.Join(keys, ", "))
}

// writeTools lists the write tools of a tools.json.
func writeTools(spec []byte) (map[string]bool, error) {
	var defs []struct {
		Function struct {
			Name string `json:"name"`
			Kind string `json:"x-kind"`
		} `json:"function"`
	}
	if err := json.Unmarshal(spec, &defs); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, d := range defs {
		if d.Function.Kind == "write" {
			out[d.Function.Name] = true
		}
	}
	return out, nil
}

// heldOut reads τ²'s tasks and keeps, for each task whose gold actions
// write, those writes.
// heldOut reads τ²'s tasks: the writes of each (the holdout), how many
// tasks there are, and how many make 0, 1, ... writes (the pack's
// tasks.write_weights; the last count holds every larger task).
func heldOut(data []byte, writes map[string]bool) ([]pack.HeldOut, int, []float64, error) {
	var tasks []struct {
		ID       json.RawMessage `json:"id"`
		Criteria *struct {
			Actions []struct {
				Name string         `json:"name"`
				Args map[string]any `json:"arguments"`
			} `json:"actions"`
		} `json:"evaluation_criteria"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&tasks); err != nil {
		return nil, 0, nil, fmt.Errorf("not τ²'s task list (a JSON array of tasks with evaluation_criteria.actions): %w", err)
	}
	var out []pack.HeldOut
	sizes := make([]float64, pack.MaxTaskWrites)
	for i, t := range tasks {
		id := strings.Trim(string(t.ID), `"`)
		if id == "" || id == "null" {
			return nil, 0, nil, fmt.Errorf("task %d has no id", i)
		}
		if t.Criteria == nil {
			continue
		}
		h := pack.HeldOut{ID: id}
		for _, a := range t.Criteria.Actions {
			if a.Name == "" {
				return nil, 0, nil, fmt.Errorf("task %s: an action without a name", id)
			}
			if writes[a.Name] {
				args := a.Args
				if args == nil {
					args = map[string]any{}
				}
				h.Writes = append(h.Writes, pack.Call{Name: a.Name, Arguments: args})
			}
		}
		sizes[min(len(h.Writes), len(sizes)-1)]++
		if len(h.Writes) > 0 {
			out = append(out, h)
		}
	}
	return out, len(tasks), sizes, nil
}

// manifestFor edits a domain.yaml template into the imported pack's:
// τ²'s database instead of a generator, τ²'s handlers, the holdout, and
// the collection keeping db.json's key order, and the mix of task sizes
// τ²'s own tasks have (sizes). Comments and anchors of the template stay.
func manifestFor(tmpl []byte, domain, dir string, db map[string]map[string]any, sizes []float64) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(tmpl, &doc); err != nil {
		return nil, fmt.Errorf("the %s template: %w", domain, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the %s template is not a mapping", domain)
	}
	m := doc.Content[0]
	set := func(key, value string) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				m.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Value: value}
				return
			}
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &yaml.Node{Kind: yaml.ScalarNode, Value: value})
	}
	del := func(key string) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				m.Content = append(m.Content[:i], m.Content[i+2:]...)
				return
			}
		}
	}
	doc.HeadComment = ""
	if len(m.Content) > 0 {
		m.Content[0].HeadComment = "" // the template's own comment
	}
	m.HeadComment = fmt.Sprintf("τ²-bench's %s environment as a pack, made by synth domain import-tau2 from\n%s: τ²'s database, policy and tools, with handlers that answer as\nτ²'s do, and the built-in %s pack's hints and policy code. holdout.json\nholds the writes of τ²'s tasks, its test set: generation never releases\na task that makes the same writes.", domain, dir, domain)
	set("name", "tau2-"+domain)
	set("description", fmt.Sprintf("τ²-bench's %s environment (its own database, policy and tools)", domain))
	set("policy", policyFile)
	set("tools", "tools.json")
	set("handlers", pack.BuiltinPrefix+"tau2-"+domain)
	del("generator")
	set("database", dbFile)
	set("holdout", HoldoutFile)
	del("tasks")
	weights := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, n := range sizes {
		weights.Content = append(weights.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatFloat(n, 'f', -1, 64)})
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "tasks", HeadComment: "τ²'s tasks by how many writes they make (0, 1, ... 5 or more)"},
		&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "write_weights"}, weights}})
	// The template's rules quote synth's policy; the pack has τ²'s, so it
	// carries the rules that quote it.
	del("rules")
	del("unchecked")
	var rules yaml.Node
	if err := yaml.Unmarshal(rulesOf(domain), &rules); err != nil || rules.Kind != yaml.DocumentNode || len(rules.Content) == 0 {
		return nil, fmt.Errorf("the rules of τ²'s %s policy: %v", domain, err)
	}
	m.Content = append(m.Content, rules.Content[0].Content...)
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "collections" || m.Content[i+1].Kind != yaml.MappingNode {
			continue
		}
		colls := m.Content[i+1]
		dropAbsent(colls, db)
		order := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Value: "key"}, {Kind: yaml.ScalarNode, Value: "collection"},
		}}
		key := &yaml.Node{Kind: yaml.ScalarNode, Value: OrderCollection, HeadComment: "db.json's key order, which τ²'s tools scan in"}
		colls.Content = append(colls.Content, key, order)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// dropAbsent removes from the collections' describe and compare lists
// the fields no record of τ²'s database has: the retail template is
// synth's own retail, whose generated orders carry a creation time τ²'s
// lack.
func dropAbsent(colls *yaml.Node, db map[string]map[string]any) {
	for i := 0; i+1 < len(colls.Content); i += 2 {
		recs, col := db[colls.Content[i].Value], colls.Content[i+1]
		if col.Kind != yaml.MappingNode || len(recs) == 0 {
			continue
		}
		for j := 0; j+1 < len(col.Content); j += 2 {
			if k := col.Content[j].Value; k != "describe" && k != "compare" {
				continue
			}
			list := col.Content[j+1]
			kept := list.Content[:0]
			for _, n := range list.Content {
				if anyHas(recs, strings.TrimPrefix(n.Value, "sum:")) {
					kept = append(kept, n)
				}
			}
			list.Content = kept
		}
	}
}

// anyHas reports whether some record has a dotted path (through lists).
func anyHas(recs map[string]any, path string) bool {
	for _, r := range recs {
		if has(r, strings.Split(path, ".")) {
			return true
		}
	}
	return false
}

func has(v any, steps []string) bool {
	if len(steps) == 0 {
		return v != nil
	}
	switch x := v.(type) {
	case map[string]any:
		return has(x[steps[0]], steps[1:])
	case []any:
		for _, e := range x {
			if has(e, steps) {
				return true
			}
		}
	}
	return false
}

// place writes the pack into a new folder beside out, checks it there
// and renames it into place. An existing out must be an empty folder: an
// import never replaces anything.
func place(out string, files map[string][]byte, check func(dir string) error) error {
	if entries, err := os.ReadDir(out); err == nil {
		if len(entries) > 0 {
			return fmt.Errorf("%s exists and is not empty: import-tau2 writes a pack only into a new or empty folder", out)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", out, err)
	}
	// A link named as the folder leads to where the pack goes.
	real, err := realpath.Resolve(out)
	if err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	parent := filepath.Dir(real)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".synth-import-*")
	if err != nil {
		return err
	}
	if err := writeAll(tmp, files); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := check(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, real); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("place the pack at %s: %w", out, err)
	}
	return nil
}

func writeAll(dir string, files map[string][]byte) error {
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

var (
	//go:embed retail_rules.yaml
	retailRules []byte
	//go:embed airline_rules.yaml
	airlineRules []byte
)

// rulesOf is the rules file of τ²'s policy of a domain.
func rulesOf(domain string) []byte {
	if domain == "airline" {
		return airlineRules
	}
	return retailRules
}
