package model

import (
	"context"
	"reflect"
	"testing"

	"github.com/synth-data/synth/tools"
)

// A computed argument's answer is reused on any state that holds what
// the function read as the base does, and computed afresh on one that
// changed it; a caller changing the answer does not change the kept one.
func TestComputeMemo(t *testing.T) {
	ctx := context.Background()
	base, err := tools.NewBase(map[string]map[string]any{
		"users": {"u1": map[string]any{"id": "u1", "bags": []any{"a"}}, "u2": map[string]any{"id": "u2", "bags": []any{"b"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	fn := memoized(map[string]tools.Handler{"bags": func(_ context.Context, st *tools.State, args map[string]any) (any, error) {
		calls++
		rec, _ := st.Get("users", args["user"].(string))
		return tools.CopyJSON(rec.(map[string]any)["bags"]), nil
	}})["bags"]
	withUser := func(key string, bags []any) *tools.State {
		st := base.NewState()
		if err := st.Put("users", key, map[string]any{"id": key, "bags": bags}); err != nil {
			t.Fatal(err)
		}
		return st
	}
	steps := []struct {
		name      string
		st        *tools.State
		want      any
		wantCalls int
	}{
		{"first call runs", base.NewState(), []any{"a"}, 1},
		{"same arguments on the base reuse it", base.NewState(), []any{"a"}, 1},
		{"a change to a record it did not read reuses it", withUser("u2", []any{"c"}), []any{"a"}, 1},
		{"a change to the record it read runs it", withUser("u1", []any{"d"}), []any{"d"}, 2},
		{"the base again reuses the first answer", base.NewState(), []any{"a"}, 2},
	}
	for _, s := range steps {
		got, err := fn(ctx, s.st, map[string]any{"user": "u1"})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if !reflect.DeepEqual(got, s.want) || calls != s.wantCalls {
			t.Errorf("%s: got %v after %d calls, want %v after %d", s.name, got, calls, s.want, s.wantCalls)
		}
		got.([]any)[0] = "changed by the caller"
	}
}
