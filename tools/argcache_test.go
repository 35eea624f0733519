package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// A parse answered from the cache is the fresh parse, and changing what
// one caller got changes nothing another gets.
func TestParseArgsCached(t *testing.T) {
	k, err := NewToolkit([]*Tool{{Name: "f", Kind: "read", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"a": map[string]any{"type": "array"}}, "required": []any{"a"}},
		Handler: func(context.Context, *State, map[string]any) (any, error) { return nil, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	const args = `{"a":[{"b":1.5}],"c":"x"}`
	_, first, err := k.ParseArgs("f", args)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": []any{map[string]any{"b": json.Number("1.5")}}, "c": "x"}
	if !reflect.DeepEqual(first, want) {
		t.Fatalf("got %#v", first)
	}
	first["a"].([]any)[0].(map[string]any)["b"] = "changed"
	first["c"] = "changed"
	for range 3 {
		_, again, err := k.ParseArgs("f", args)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, want) {
			t.Fatalf("cached parse %#v, want %#v", again, want)
		}
		again["c"] = "changed"
	}
	for range 2 {
		if _, _, err := k.ParseArgs("f", `{"c":1}`); err == nil {
			t.Fatal("arguments missing a required key pass")
		}
	}
	for i := range 2*argCacheSize + 1 {
		if _, _, err := k.ParseArgs("f", `{"a":[`+strconv.Itoa(i)+`]}`); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(k.parsed.cur) + len(k.parsed.old); n > 2*argCacheSize {
		t.Errorf("cache holds %d entries", n)
	}
}
