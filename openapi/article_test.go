package openapi

import (
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// The handlers' error text is what the agent reads back to a customer:
// "an identity", never "a identity".
func TestHandlerArticles(t *testing.T) {
	thread := &starlark.Thread{Name: "articles"}
	globals, err := starlark.ExecFileOptions(&syntax.FileOptions{}, thread, "helpers.star", helpers, nil)
	if err != nil {
		t.Fatalf("the handler helpers do not load: %v", err)
	}
	a, ok := globals["_a"].(starlark.Callable)
	if !ok {
		t.Fatal("the handler helpers define no _a")
	}
	for _, tc := range []struct{ noun, want string }{
		{"entity", "an entity"},
		{"identity", "an identity"},
		{"id", "an id"},
		{"Order", "an Order"},
		{"user", "a user"},
		{"uuid", "a uuid"},
		{"url", "a url"},
		{"unique name", "a unique name"},
		{"device_id", "a device_id"},
		{"", "a "},
	} {
		got, err := starlark.Call(thread, a, starlark.Tuple{starlark.String(tc.noun)}, nil)
		if err != nil {
			t.Fatalf("_a(%q): %v", tc.noun, err)
		}
		if s, _ := starlark.AsString(got); s != tc.want {
			t.Errorf("_a(%q) = %q, want %q", tc.noun, s, tc.want)
		}
	}
}
