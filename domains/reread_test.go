package domains_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/usersim"
)

// rereads lists the read calls of a dialogue that repeat one made since
// the last write, same tool and same arguments: the state cannot have
// changed, so the agent already had the answer.
func rereads(msgs []record.Message, kind func(string) string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			switch kind(c.Function.Name) {
			case record.KindWrite:
				clear(seen)
			case record.KindRead:
				key := c.Function.Name + " " + canonicalArgs(c.Function.Arguments)
				if seen[key] {
					out = append(out, key)
				}
				seen[key] = true
			}
		}
	}
	return out
}

// canonicalArgs re-encodes arguments with sorted keys, so two spellings
// of one call compare equal.
func canonicalArgs(raw string) string {
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestRereadsDetector(t *testing.T) {
	kinds := map[string]string{"get": record.KindRead, "put": record.KindWrite, "think": record.KindGeneric}
	call := func(name, args string) record.Message {
		return record.Message{Role: "assistant", ToolCalls: []record.ToolCall{{Function: record.FunctionCall{Name: name, Arguments: args}}}}
	}
	cases := []struct {
		name string
		msgs []record.Message
		want int
	}{
		{"distinct reads", []record.Message{call("get", `{"id":"1"}`), call("get", `{"id":"2"}`)}, 0},
		{"same read twice", []record.Message{call("get", `{"id":"1","x":2}`), call("think", `{}`), call("get", `{"x":2, "id":"1"}`)}, 1},
		{"a write between", []record.Message{call("get", `{"id":"1"}`), call("put", `{"id":"1"}`), call("get", `{"id":"1"}`)}, 0},
	}
	for _, tc := range cases {
		if got := rereads(tc.msgs, func(n string) string { return kinds[n] }); len(got) != tc.want {
			t.Errorf("%s: %d re-reads %v, want %d", tc.name, len(got), got, tc.want)
		}
	}
}

// TestNoRereadWithoutWrite plays dialogues of each built-in domain and
// checks that the oracle agent never repeats a read with no write in
// between: it keeps what it read until a write may have changed it.
func TestNoRereadWithoutWrite(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	const n = 300
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			d := load(t, domain)
			w, _ := blueprints.ParseRange("0-5")
			r, _ := blueprints.ParseRange("2-7")
			gen, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 1, Writes: w, Reads: r, Refusals: 0.2, Behaviors: usersim.Profiles()})
			if err != nil {
				t.Fatal(err)
			}
			reads := 0
			for i := 0; i < n; i++ {
				bp, err := gen.Generate(context.Background(), i)
				if err != nil {
					t.Fatal(err)
				}
				tr, err := embedded.Simulate(context.Background(), d, bp, 60)
				if err != nil {
					t.Fatal(err)
				}
				if again := rereads(tr.Messages, d.Tools.Kind); len(again) > 0 {
					t.Fatalf("blueprint %d (%s) reads again with nothing written between: %v\n%s", i, bp.Behavior, again, transcript(tr))
				}
				for _, m := range tr.Messages {
					for _, c := range m.ToolCalls {
						if d.Tools.Kind(c.Function.Name) == record.KindRead {
							reads++
						}
					}
				}
			}
			if reads < n {
				t.Fatalf("%d reads in %d dialogues: the test no longer sees the agent's reads", reads, n)
			}
			t.Logf("%d dialogues, %d reads, none repeated", n, reads)
		})
	}
}
