package domains_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/usersim"
)

// rereads lists the read calls of a dialogue that repeat an earlier one,
// same tool and same arguments, and get the answer it got: nothing the
// read shows changed in between, writes or not, so the agent already had
// the answer.
func rereads(msgs []record.Message, kind func(string) string) []string {
	var out []string
	seen := map[string]string{}
	calls := map[string]string{}
	for _, m := range msgs {
		if key, ok := calls[m.ToolCallID]; ok && m.Role == "tool" {
			if prev, ok := seen[key]; ok && prev == m.Content {
				out = append(out, key)
			}
			seen[key] = m.Content
			continue
		}
		for _, c := range m.ToolCalls {
			if kind(c.Function.Name) == record.KindRead {
				calls[c.ID] = c.Function.Name + " " + canonicalArgs(c.Function.Arguments)
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
	n := 0
	call := func(name, args, answer string) []record.Message {
		n++
		id := fmt.Sprint(n)
		return []record.Message{{Role: "assistant", ToolCalls: []record.ToolCall{{ID: id, Function: record.FunctionCall{Name: name, Arguments: args}}}},
			{Role: "tool", ToolCallID: id, Name: name, Content: answer}}
	}
	cases := []struct {
		name string
		msgs []record.Message
		want int
	}{
		{"distinct reads", slices.Concat(call("get", `{"id":"1"}`, "a"), call("get", `{"id":"2"}`, "a")), 0},
		{"same read twice", slices.Concat(call("get", `{"id":"1","x":2}`, "a"), call("think", `{}`, ""), call("get", `{"x":2, "id":"1"}`, "a")), 1},
		{"a write that changed it", slices.Concat(call("get", `{"id":"1"}`, "a"), call("put", `{"id":"1"}`, "ok"), call("get", `{"id":"1"}`, "b")), 0},
		{"a write that left it", slices.Concat(call("get", `{"id":"1"}`, "a"), call("put", `{"id":"2"}`, "ok"), call("get", `{"id":"1"}`, "a")), 1},
	}
	for _, tc := range cases {
		if got := rereads(tc.msgs, func(n string) string { return kinds[n] }); len(got) != tc.want {
			t.Errorf("%s: %d re-reads %v, want %d", tc.name, len(got), got, tc.want)
		}
	}
}

// TestNoRereadOfUnchanged plays dialogues of each built-in domain and
// checks that the oracle agent never repeats a read whose answer nothing
// has changed: it keeps what it read until a write changes it, and then
// reads again only that.
func TestNoRereadOfUnchanged(t *testing.T) {
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
			played, err := testplay.Play(d, gen, n)
			if err != nil {
				t.Fatal(err)
			}
			reads := 0
			for i, dl := range played {
				if again := rereads(dl.TR.Messages, d.Tools.Kind); len(again) > 0 {
					t.Fatalf("blueprint %d (%s) reads again what no write changed: %v\n%s", i, dl.BP.Behavior, again, transcript(dl.TR))
				}
				for _, m := range dl.TR.Messages {
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
