package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pb33f/go-yaml"

	"github.com/synth-data/synth/pack"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// manyOps is a spec with n operations over n/5 resources.
func manyOps(n int) []byte {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: Big, version: \"1\"}\npaths:\n")
	for i := 0; i*5 < n; i++ {
		fmt.Fprintf(&b, `  /things%d:
    get:
      operationId: listThings%d
      parameters:
        - {name: color, in: query, schema: {type: string}}
        - {name: limit, in: query, schema: {type: integer}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Thing"}}}}}
    post:
      operationId: createThing%d
      requestBody: {required: true, content: {application/json: {schema: {$ref: "#/components/schemas/Thing"}}}}
      responses: {"201": {description: ok}}
  /things%d/{id}:
    get:
      operationId: getThing%d
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Thing"}}}}
    patch:
      operationId: updateThing%d
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/Thing"}}}}
      responses: {"200": {description: ok}}
    delete:
      operationId: deleteThing%d
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses: {"204": {description: ok}}
`, i, i, i, i, i, i, i)
	}
	b.WriteString(`components:
  schemas:
    Thing:
      type: object
      required: [name]
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string, maxLength: 40}
        color: {type: string, enum: [red, green, blue]}
        price: {type: number, minimum: 0}
        created_at: {type: string, format: date-time}
        owner: {$ref: "#/components/schemas/Person"}
        parts: {type: array, items: {$ref: "#/components/schemas/Thing"}}
    Person:
      type: object
      properties:
        email: {type: string, format: email}
        first_name: {type: string}
        last_name: {type: string}
`)
	return []byte(b.String())
}

// Bad input fails with an error naming the file, the problem and (where
// there is one) the line, and writes nothing.
func TestBadInput(t *testing.T) {
	cases := []struct {
		file string
		raw  []byte
		opts Options
		want []string
	}{
		{file: "swagger2.yaml", want: []string{"swagger2.yaml", "swagger: 2.0", "not supported", "swagger2openapi"}},
		{file: "asyncapi.yaml", want: []string{"asyncapi.yaml", "AsyncAPI", "line 1"}},
		{file: "no-version.yaml", want: []string{"no-version.yaml", "missing the openapi field"}},
		{file: "version-4.yaml", want: []string{"version-4.yaml", "4.0.0", "line 1", "3.0.x and 3.1.x"}},
		{file: "version-2.yaml", want: []string{"version-2.yaml", "2.0.0", "not a supported version"}},
		{file: "truncated.json", want: []string{"truncated.json", "truncated JSON", "line 6"}},
		{file: "truncated.yaml", want: []string{"truncated.yaml", "truncated YAML", "line 169", "no final newline"}},
		{file: "truncated-key.yaml", want: []string{"truncated-key.yaml", "truncated YAML", "line 42", "responses:"}},
		{file: "malformed.yaml", want: []string{"malformed.yaml", "not valid YAML", "line 6"}},
		{file: "empty.yaml", want: []string{"empty.yaml", "empty"}},
		{file: "list.yaml", want: []string{"list.yaml", "top level is a list"}},
		{file: "no-operations.yaml", want: []string{"no-operations.yaml", "line 3", "no operations"}},
		{file: "no-paths.yaml", want: []string{"no-paths.yaml", "no paths"}},
		{file: "actions-only.yaml", want: []string{"actions-only.yaml", "resource-shaped"}},
		{file: "big.yaml", raw: manyOps(1500), want: []string{"big.yaml", "line 3", "1500 operations", "--max-operations 1000", "--include"}},
		{file: "big.yaml", raw: manyOps(50), opts: Options{MaxOperations: 20}, want: []string{"50 operations", "--max-operations 20"}},
		{file: "resilient.yaml", opts: Options{Include: []string{"/nothing/**"}}, want: []string{"no operation matches --include /nothing/**"}},
		{file: "resilient.yaml", opts: Options{Name: "Bad Name"}, want: []string{"--name", "lower case"}},
		{file: "resilient.yaml", opts: Options{MaxOperations: -1}, want: []string{"--max-operations"}},
	}
	for _, c := range cases {
		t.Run(c.file+fmt.Sprint(c.opts.Include, c.opts.MaxOperations, c.opts.Name), func(t *testing.T) {
			raw := c.raw
			if raw == nil {
				raw = readTestdata(t, c.file)
			}
			c.opts.Source = c.file
			if _, err := Import(context.Background(), raw, c.opts); err == nil {
				t.Fatal("no error")
			} else {
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
			}
			// Through the file API: the output folder is never created.
			spec := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(spec, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "pack")
			if _, err := ImportFile(context.Background(), spec, out, c.opts); err == nil {
				t.Fatal("ImportFile: no error")
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a failed import left %s behind", out)
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".pack.tmp-*"))
			if len(left) > 0 {
				t.Errorf("a failed import left temporary folders: %v", left)
			}
		})
	}
}

// What real specs get wrong is worked around per operation, with a
// warning naming the operation and line.
func TestResilient(t *testing.T) {
	res, err := Import(context.Background(), readTestdata(t, "resilient.yaml"), Options{Source: "resilient.yaml", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Operations != 13 {
		t.Errorf("operations = %d, want 13", res.Operations)
	}
	warn := strings.Join(res.Warnings, "\n")
	report := string(res.Files["IMPORT.md"])
	for _, w := range []string{
		`GET /categories/{id} (line 110): $ref "#/components/parameters/NoSuchParam" (line 112) does not exist`,
		`PUT /categories/{id} (line 121): $ref "https://schemas.example.com/shop.yaml#/components/schemas/Category" (line 127) is a URL: remote references are not fetched`,
		`PATCH /products/{productId} (line 49): path parameter "ghost" is not in the URL template`,
		`GET /products/{productId}/reviews (line 79): path parameter {productId} is in the URL template but not declared`,
		`cookie parameter "session"`,
	} {
		if !strings.Contains(warn, w) {
			t.Errorf("warnings lack %q:\n%s", w, warn)
		}
		if !strings.Contains(report, w) {
			t.Errorf("IMPORT.md lacks warning %q", w)
		}
	}
	if strings.Contains(warn, "not-here.yaml") {
		t.Errorf("a $ref inside a vendor extension made a warning:\n%s", warn)
	}
	tl := toolsOf(t, res)
	handlers := string(res.Files["handlers.star"])
	for _, c := range []struct{ tool, handler string }{
		{"listProducts", "_list("}, {"createProduct", "_create("}, {"getProduct", "_get("},
		{"updateProduct", "_update("}, {"deleteProduct", "_delete("}, {"listReviews", "_list("},
		{"addReview", "_create("}, {"getReview", "_get("},
		{"getCategory", "is not mapped to data"}, {"putCategory", "is not mapped to data"},
		{"plantTree", "is not mapped to data"}, {"uploadImage", "is not mapped to data"},
	} {
		i := strings.Index(handlers, "def "+c.tool+"(db, args):")
		if i < 0 {
			t.Errorf("handlers.star has no def %s", c.tool)
			continue
		}
		body := handlers[i:]
		if j := strings.Index(body[1:], "\ndef "); j > 0 {
			body = body[:j]
		}
		if !strings.Contains(body, c.handler) {
			t.Errorf("%s: handler %q, want %s", c.tool, body, c.handler)
		}
	}
	if !strings.Contains(handlers, "write its handler in handlers.star — def plantTree(db, args):") {
		t.Error("an unmapped handler does not tell what to write")
	}
	// 3.0 keywords become 2020-12; readOnly fields are not arguments; a
	// form body is folded like JSON; other bodies are one string.
	props := func(tool string) map[string]any {
		return tl[tool]["properties"].(map[string]any)
	}
	up := props("updateProduct")
	if got := up["price"]; !reflect.DeepEqual(got, map[string]any{"type": "number", "exclusiveMinimum": 0.0}) {
		t.Errorf("exclusiveMinimum: true not converted: %v", got)
	}
	if got := up["status"]; !reflect.DeepEqual(got, map[string]any{"type": []any{"string", "null"}, "enum": []any{"active", "retired", nil}}) {
		t.Errorf("nullable not converted: %v", got)
	}
	if _, ok := props("createProduct")["id"]; ok {
		t.Error("the readOnly id is an argument of createProduct")
	}
	if req := tl["createProduct"]["required"]; !reflect.DeepEqual(req, []any{"name"}) {
		t.Errorf("createProduct required %v, want [name] (allOf merged)", req)
	}
	if got := props("uploadImage")["body"].(map[string]any)["type"]; got != "string" {
		t.Errorf("octet-stream body: %v", props("uploadImage")["body"])
	}
	if got := props("search")["body"].(map[string]any)["type"]; got != "array" {
		t.Errorf("array body not under body: %v", props("search")["body"])
	}
	if _, ok := props("listProducts")["X-Request-ID"]; !ok {
		t.Error("header parameter missing")
	}
	// The recursive schema is cut, finite and noted.
	tree, _ := json.Marshal(tl["plantTree"])
	if !strings.Contains(string(tree), "recursive") || len(tree) > 2000 {
		t.Errorf("recursive schema not cut: %s", tree)
	}
	if !strings.Contains(report, "recursive schema Node cut at the cycle") {
		t.Error("IMPORT.md does not note the cut cycle")
	}
	for name, s := range tl {
		if err := compileSchema(s); err != nil {
			t.Errorf("%s parameters do not compile: %v", name, err)
		}
	}
	// The nested collection's records point at existing parents.
	var db map[string]map[string]map[string]any
	if err := json.Unmarshal(res.Files["db.json"], &db); err != nil {
		t.Fatal(err)
	}
	for k, r := range db["reviews"] {
		pid := fmt.Sprint(r["product_id"])
		if _, ok := db["products"][pid]; !ok {
			t.Errorf("review %s has product_id %s, not a product", k, pid)
		}
		if r["id"] != k {
			t.Errorf("review %s has key field %v", k, r["id"])
		}
	}
	for k, r := range db["products"] {
		if !regexp.MustCompile(`^SKU-[0-9]{6}$`).MatchString(fmt.Sprint(r["sku"])) {
			t.Errorf("product %s sku %v does not match its pattern", k, r["sku"])
		}
	}
	if n := len(db["products"]); n < minRecords || n > maxRecords {
		t.Errorf("%d products, want %d-%d", n, minRecords, maxRecords)
	}
}

func toolsOf(t *testing.T, res *Result) map[string]map[string]any {
	t.Helper()
	var list []struct {
		Function struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(res.Files["tools.json"], &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, x := range list {
		out[x.Function.Name] = x.Function.Parameters
	}
	return out
}

// The same spec and seed give the same pack; another seed another
// database.
func TestDeterministic(t *testing.T) {
	raw := readTestdata(t, "resilient.yaml")
	a, err := Import(context.Background(), raw, Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Import(context.Background(), raw, Options{Seed: 5})
	c, _ := Import(context.Background(), raw, Options{Seed: 6})
	for name := range a.Files {
		if !bytes.Equal(a.Files[name], b.Files[name]) {
			t.Errorf("%s differs between two imports with the same seed", name)
		}
	}
	if bytes.Equal(a.Files["db.json"], c.Files["db.json"]) {
		t.Error("db.json is the same for seeds 5 and 6")
	}
}

func TestInclude(t *testing.T) {
	res, err := Import(context.Background(), readTestdata(t, "resilient.yaml"), Options{Include: []string{"/products", "/products/*"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Operations != 5 {
		t.Errorf("--include /products /products/*: %d operations, want 5", res.Operations)
	}
	res, err = Import(context.Background(), readTestdata(t, "resilient.yaml"), Options{Include: []string{"/products/**"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Operations != 7 {
		t.Errorf("--include /products/**: %d operations, want 7", res.Operations)
	}
}

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "pack")
	if err := WriteDir(dir, map[string][]byte{"x.txt": []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "x.txt")); string(b) != "x" {
		t.Errorf("x.txt = %q", b)
	}
	err := WriteDir(dir, map[string][]byte{"y.txt": nil})
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("writing into a non-empty folder: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(empty, map[string][]byte{"y.txt": []byte("y")}); err != nil {
		t.Errorf("writing into an empty folder: %v", err)
	}
	if err := WriteDir(filepath.Join(t.TempDir(), "p"), map[string][]byte{"../evil": nil}); err == nil {
		t.Error("a file name with a path was written")
	}
}

func node(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	return deref(&n)
}

func TestSchemaConversion(t *testing.T) {
	root := node(t, `components:
  schemas:
    A: {type: object, properties: {b: {$ref: "#/components/schemas/B"}}}
    B: {type: object, properties: {a: {$ref: "#/components/schemas/A"}}}
    S: {type: string, pattern: "^x"}
    Weird~Name: {type: integer}
`)
	set := newSpecSet(context.Background(), nil, "", DefaultMaxSpecBytes)
	set.root = set.add("spec", root)
	conv := newConverter(set)
	cases := []struct {
		in     string
		want   string
		broken bool
	}{
		{`{type: string, nullable: true}`, `{"type":["string","null"]}`, false},
		{`{type: integer, minimum: 1, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false}`, `{"exclusiveMinimum":1,"maximum":9,"type":"integer"}`, false},
		{`{type: number, exclusiveMinimum: 0}`, `{"exclusiveMinimum":0,"type":"number"}`, false},
		{`{type: string, example: hi}`, `{"examples":["hi"],"type":"string"}`, false},
		{`{oneOf: [{type: string}, {type: integer}]}`, `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, false},
		{`{type: [string, "null"], const: x}`, `{"const":"x","type":["string","null"]}`, false},
		{`{type: file}`, `{"type":"string"}`, false},
		{`{type: string, pattern: "(?<=a)b"}`, `{"type":"string"}`, false},
		{`{type: array, items: [{type: string}]}`, `{"prefixItems":[{"type":"string"}],"type":"array"}`, false},
		{`{$ref: "#/components/schemas/S", description: d}`, `{"description":"d","pattern":"^x","type":"string"}`, false},
		{`{$ref: "#/components/schemas/S", nullable: true}`, `{"anyOf":[{"pattern":"^x","type":"string"},{"type":"null"}]}`, false},
		{`{$ref: "#/components/schemas/Weird~0Name"}`, `{"type":"integer"}`, false},
		{`{allOf: [{$ref: "#/components/schemas/S"}], x-vendor: {$ref: "nowhere.yaml"}}`, `{"allOf":[{"pattern":"^x","type":"string"}]}`, false},
		{`{$ref: "#/components/schemas/Nope"}`, `{"description":"unresolved $ref #/components/schemas/Nope"}`, true},
		{`{$ref: "other.yaml#/X"}`, `{"description":"unresolved $ref other.yaml#/X"}`, true},
		{`{$ref: "https://example.com/x.yaml#/X"}`, `{"description":"unresolved $ref https://example.com/x.yaml#/X"}`, true},
		{`true`, `true`, false},
		{`{type: string, x-nullable: true, discriminator: {propertyName: k}}`, `{"type":"string"}`, false},
		// Numbers a trainer's JSON decoder would not read back as written
		// go (exactInJSON); the ones it reads exactly stay.
		{`{type: [integer, "null"], minimum: 0, maximum: 18014398509481983}`, `{"minimum":0,"type":["integer","null"]}`, false},
		{`{type: integer, format: int64, minimum: -9223372036854775808, maximum: 9223372036854775807}`, `{"format":"int64","type":"integer"}`, false},
		{`{type: integer, minimum: -9007199254740991, maximum: 9007199254740991}`, `{"maximum":9007199254740991,"minimum":-9007199254740991,"type":"integer"}`, false},
		{`{type: integer, default: 9223372036854775807, example: 9223372036854775807}`, `{"type":"integer"}`, false},
		{`{type: integer, enum: [1, 18446744073709551615]}`, `{"type":"integer"}`, false},
		{`{type: number, minimum: 0.05, maximum: 0.3, default: 0.5, examples: [0.6, 2.32]}`, `{"default":0.5,"examples":[2.32],"minimum":0.05,"type":"number"}`, false},
		{`{type: object, default: {a: 0.1, b: 0.7}}`, `{"type":"object"}`, false},
		{`{type: [string, "null"], default: null, const: null}`, `{"const":null,"type":["string","null"]}`, false},
	}
	for _, c := range cases {
		got, w := conv.Schema(node(t, c.in))
		raw, _ := json.Marshal(got)
		if string(raw) != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.in, raw, c.want)
		}
		if (len(w.broken) > 0) != c.broken {
			t.Errorf("%s: broken refs %v, want broken=%v", c.in, w.broken, c.broken)
		}
	}
	// A cycle is cut: A -> B -> A.
	got, w := conv.Schema(node(t, `{$ref: "#/components/schemas/A"}`))
	raw, _ := json.Marshal(got)
	want := `{"properties":{"b":{"properties":{"a":{"description":"A (recursive: the same structure nests here; cut to keep the schema finite)","type":"object"}},"type":"object"}},"type":"object"}`
	if string(raw) != want || len(w.notes) == 0 {
		t.Errorf("cycle:\n got %s\nwant %s (notes %v)", raw, want, w.notes)
	}
}

// TestExactInJSON pins the numbers pandas' ujson_loads(precise_float=False)
// reads back as Go wrote them; render_check.mjs's ujsonNumber makes the
// same reading of the rows.
func TestExactInJSON(t *testing.T) {
	cases := []struct {
		v    any
		want bool
	}{
		{int64(1<<53 - 1), true},
		{int64(-(1<<53 - 1)), true},
		{int64(1 << 53), false},
		{float64(1 << 54), false},
		{9223372036854775807.0, false},
		{0.5, true},
		{2.32, true},
		{0.2, true},
		{0.05, true},
		{0.3, false}, // 3 * 0.1 is 0.30000000000000004
		{0.6, false},
		{-0.7, false},
		{1e-7, false}, // written as 1e-07: ujson's exponent path
		{"18014398509481983", true},
		{[]any{int64(1), 0.3}, false},
		{map[string]any{"a": 0.5, "b": nil}, true},
	}
	for _, c := range cases {
		if got := exactInJSON(c.v); got != c.want {
			t.Errorf("exactInJSON(%#v) = %v, want %v", c.v, got, c.want)
		}
	}
}

func TestToolNames(t *testing.T) {
	cases := []struct{ id, method, path, want string }{
		{"getPet", "get", "/pets/{id}", "getPet"},
		{"pets.list-all", "get", "/pets", "pets_list_all"},
		{"", "get", "/pets/{petId}/photos", "list_pet_photos"},
		{"", "get", "/pets", "list_pets"},
		{"", "post", "/pets", "create_pet"},
		{"", "get", "/v2/pets/{id}", "get_pet"},
		{"", "put", "/pets/{id}", "update_pet"},
		{"", "patch", "/pets/{id}", "update_pet"},
		{"", "delete", "/pets/{id}", "delete_pet"},
		{"", "post", "/pets/{id}/photos", "create_pet_photo"},
		{"", "post", "/v1/batches/{batch_id}/cancel", "cancel_batch"},
		{"", "get", "/v2/account", "get_account"},
		{"", "get", "/users/me", "get_users_me"},
		{"", "post", "/login", "login"},
		{"", "get", "/v2/1-clicks", "list_1_clicks"},
		{"", "head", "/files/{id}", "check_file"},
		{"", "get", "/{id}", "get_id"},
		{"2fa/verify", "post", "/x", "op_2fa_verify"},
		{"list", "get", "/x", "list_op"},
		{"def", "get", "/x", "def_op"},
		{"über-Größe", "get", "/x", "ber_Gr_e"},
		{strings.Repeat("a", 80), "get", "/x", strings.Repeat("a", 64)},
	}
	for _, c := range cases {
		o := &op{rawOp: rawOp{Method: c.method, Path: c.path}, ID: c.id}
		if got := toolName(o); got != c.want {
			t.Errorf("toolName(%q, %s %s) = %q, want %q", c.id, c.method, c.path, got, c.want)
		}
	}
	ops := []*op{{ID: "a"}, {ID: "a"}, {ID: "a_2"}}
	nameTools(ops)
	if ops[0].Tool != "a" || ops[1].Tool != "a_2" || ops[2].Tool != "a_2_2" {
		t.Errorf("dedup: %s %s %s", ops[0].Tool, ops[1].Tool, ops[2].Tool)
	}
	// Derived names take more of the path before a number.
	ops = []*op{{rawOp: rawOp{Method: "get", Path: "/stores/{id}/pets"}}, {rawOp: rawOp{Method: "get", Path: "/shelters/{id}/pets"}}, {rawOp: rawOp{Method: "get", Path: "/stores/{id}/pets"}}}
	nameTools(ops)
	if got := []string{ops[0].Tool, ops[1].Tool, ops[2].Tool}; !reflect.DeepEqual(got, []string{"list_store_pets", "list_shelter_pets", "get_stores_id_pets"}) {
		t.Errorf("derived dedup: %v", got)
	}
	if len(ops[2].Warnings) > 0 {
		t.Errorf("a derived name warned: %v", ops[2].Warnings)
	}
}

func TestGenRegex(t *testing.T) {
	rc := newRegexCache()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range []string{`^VA[0-9a-fA-F]{32}$`, `^(0|[1-9][0-9]{0,19})$`, `^[a-z]+(-[a-z]+)*$`, `^SKU-\d{6}$`, `^(red|green)$`, `^.{3,5}$`} {
		for i := 0; i < 20; i++ {
			s, ok := rc.gen(rng, p)
			if !ok || !regexp.MustCompile(p).MatchString(s) {
				t.Fatalf("gen(%s) = %q, %v", p, s, ok)
			}
		}
	}
	if _, ok := rc.gen(rng, `(?<=a)b`); ok {
		t.Error("a pattern Go cannot compile was generated")
	}
}

// FuzzImport: no input makes the importer panic; whatever it accepts
// has parameters that compile.
func FuzzImport(f *testing.F) {
	for _, name := range []string{"resilient.yaml", "swagger2.yaml", "truncated.json", "truncated.yaml", "malformed.yaml", "actions-only.yaml", "no-operations.yaml",
		"alias-bomb.yaml", "refs/dangling-component.yaml", "refs/pointers.yaml", "refs/no-operation-ids.yaml", "refs/client-id.yaml", "seed/billing.yaml"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add(manyOps(10))
	f.Add([]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/a/{id}":{"get":{"responses":{"200":{"description":"x","content":{"application/json":{"schema":{"$ref":"#"}}}}}}}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := Import(context.Background(), raw, Options{MaxOperations: 40})
		if err != nil {
			return
		}
		var list []struct {
			Function struct {
				Parameters map[string]any `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(res.Files["tools.json"], &list); err != nil {
			t.Fatalf("tools.json: %v", err)
		}
		for _, x := range list {
			if err := compileSchema(x.Function.Parameters); err != nil {
				t.Fatalf("parameters do not compile: %v", err)
			}
		}
	})
}

// BenchmarkImport500 imports a generated 500-operation spec (target:
// under 5 s).
func BenchmarkImport500(b *testing.B) {
	raw := manyOps(500)
	for b.Loop() {
		res, err := Import(context.Background(), raw, Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if res.Operations != 500 {
			b.Fatalf("%d operations", res.Operations)
		}
	}
}

// Documented error responses become the pack's failures: 429, 409, 5xx,
// 408/504 are retried, 402 and 410 handed over; 400 and 404 answer a
// wrong request and are none; a response's description is the error.
func TestImportFailures(t *testing.T) {
	res, err := Import(context.Background(), readTestdata(t, "failures.yaml"), Options{Source: "failures.yaml", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var man struct {
		Failures []pack.Failure `yaml:"failures"`
	}
	if err := yaml.Unmarshal(res.Files["domain.yaml"], &man); err != nil {
		t.Fatal(err)
	}
	want := []pack.Failure{
		{Kind: pack.FailDeclinedPayment, Tools: []string{"createOrder"}, Error: "Payment declined by the card issuer", Recovery: pack.RecoverTransfer},
		{Kind: pack.FailConflict, Tools: []string{"createOrder"}, Error: "An order with this id already exists", Recovery: pack.RecoverRetry},
		{Kind: pack.FailRateLimit, Tools: []string{"createOrder", "deleteOrder"}, Error: "Too many requests, slow down", Recovery: pack.RecoverRetry},
		{Kind: pack.FailServerError, Tools: []string{"createOrder"}, Error: "Internal server error", Recovery: pack.RecoverRetry},
		{Kind: pack.FailUnavailable, Tools: []string{"deleteOrder"}, Error: "The order is no longer available", Recovery: pack.RecoverTransfer},
	}
	if !reflect.DeepEqual(man.Failures, want) {
		t.Errorf("failures:\n got %+v\nwant %+v", man.Failures, want)
	}
}
