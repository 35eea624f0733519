package openapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"
)

// FuzzJSONNode: the JSON decoder accepts exactly what encoding/json
// accepts, and the tree it builds holds the same values.
func FuzzJSONNode(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x", true, null, {"b": -3e2}]}`, `[]`, `{"a":1}{"b":2}`, `{"a":`, `{"a" 1}`,
		`"\u00e9\ud83d\ude00"`, `{"k": 12345678901234567890}`, `{"dup": 1, "dup": 2}`, `  [1,]`} {
		f.Add([]byte(s))
	}
	if raw, err := os.ReadFile(filepath.Join("testdata", "truncated.json")); err == nil {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		n, err := jsonNode(raw)
		var want any
		werr := json.Unmarshal(raw, &want)
		if (err == nil) != (werr == nil) {
			t.Fatalf("jsonNode error %v, encoding/json error %v", err, werr)
		}
		if err != nil {
			return
		}
		got, ok := value(n, 0)
		if !ok {
			return // deeper or larger than a literal the importer keeps
		}
		// Compare as encoding/json sees both (numbers as float64).
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("the tree's value does not marshal: %v", err)
		}
		var back any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, want) {
			t.Fatalf("jsonNode value %v, encoding/json %v", back, want)
		}
	})
}

// FuzzImportFiles: a multi-file spec whose files say anything never
// crashes the import; what imports has parameters that compile, and a
// spec whose $refs name an absent or broken file is refused.
func FuzzImportFiles(f *testing.F) {
	root := []byte(`openapi: 3.0.3
info: {title: Files, version: "1"}
paths:
  /things:
    $ref: "paths/things.yaml"
  /things/{id}:
    get:
      $ref: "ops/get.json"
`)
	f.Add(root, []byte("get:\n  responses:\n    \"200\":\n      description: ok\n      content:\n        application/json:\n          schema: {type: array, items: {$ref: \"../schemas/thing.yaml\"}}\n"),
		[]byte(`{"parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}], "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "../schemas/thing.yaml"}}}}}}`),
		[]byte("type: object\nproperties:\n  id: {type: string}\n  next: {$ref: \"#\"}\n  other: {$ref: \"thing.yaml#/properties/id\"}\n"))
	f.Add(root, []byte("get: [unclosed"), []byte(`{"responses": `), []byte("$ref: ../paths/things.yaml"))
	f.Fuzz(func(t *testing.T, spec, things, get, thing []byte) {
		fsys := fstest.MapFS{
			"api.yaml":           {Data: spec},
			"paths/things.yaml":  {Data: things},
			"ops/get.json":       {Data: get},
			"schemas/thing.yaml": {Data: thing},
		}
		res, err := Import(context.Background(), spec, Options{Source: "api.yaml", Files: fsys, MaxOperations: 40, MaxSpecBytes: 1 << 20})
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
