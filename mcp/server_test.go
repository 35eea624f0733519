package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/mcp"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/serve"
)

const seed = 7

// connect serves one episode of domain (blueprint index of the run with
// seed) in memory and returns a client session of it.
func connect(t testing.TB, env *serve.Server, domain string, index int) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	s, err := mcp.New(ctx, env, mcp.Options{Start: start(domain, seed, index), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	c := sdk.NewClient(&sdk.Implementation{Name: "synth-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		<-done
	})
	return cs
}

func start(domain string, seed uint64, index int) serve.ResetRequest {
	return serve.ResetRequest{Domain: domain, Seed: &seed, Index: &index}
}

func newEnv(t testing.TB, opts *serve.Options) *serve.Server {
	t.Helper()
	o := serve.Defaults()
	if opts != nil {
		o = *opts
	}
	env, err := serve.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// oracles are the embedded engine's dialogues of blueprints [0, n) of
// synth run --domain domain --seed seed.
func oracles(t testing.TB, domain string, n int) (*domain.Domain, []testplay.Dialogue) {
	t.Helper()
	d, err := domains.Load(domain, seed)
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.Defaults()
	cfg.Domain, cfg.Seed = domain, seed
	gen, err := pipeline.Generator(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	out, err := testplay.Play(d, gen, n)
	if err != nil {
		t.Fatal(err)
	}
	return d, out
}

// tools/list is the domain's tools as its rows carry them: names and
// descriptions, and input schemas equal to the functions' parameters;
// reads are marked read-only, writes not. (The SDK lists tools by name.)
func TestToolsListed(t *testing.T) {
	env := newEnv(t, nil)
	for _, domain := range domains.Names() {
		t.Run(domain, func(t *testing.T) {
			d, err := domains.Load(domain, seed)
			if err != nil {
				t.Fatal(err)
			}
			var want []struct {
				Function struct {
					Name, Description string
					Parameters        any
				}
			}
			if err := json.Unmarshal([]byte(d.Tools.OpenAI()), &want); err != nil {
				t.Fatal(err)
			}
			cs := connect(t, env, domain, 0)
			got, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Tools) != len(want) {
				t.Fatalf("%d tools listed, the domain has %d", len(got.Tools), len(want))
			}
			byName := map[string]int{}
			for i, w := range want {
				byName[w.Function.Name] = i
			}
			for i, tool := range got.Tools {
				k, ok := byName[tool.Name]
				if !ok {
					t.Errorf("tool %d: listed %s, which the domain has not", i, tool.Name)
					continue
				}
				delete(byName, tool.Name)
				w := want[k].Function
				schema := roundTrip(t, tool.InputSchema)
				if tool.Name != w.Name || tool.Description != w.Description || !reflect.DeepEqual(schema, w.Parameters) {
					t.Errorf("tool %d: listed %s %q %v; the domain has %s %q %v", i, tool.Name, tool.Description, schema, w.Name, w.Description, w.Parameters)
				}
				readOnly := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
				if readOnly != (d.Tools.Kind(tool.Name) != record.KindWrite) {
					t.Errorf("%s (%s): readOnlyHint %v", tool.Name, d.Tools.Kind(tool.Name), readOnly)
				}
			}
			t.Logf("%s: %d tools listed, equal to the domain's", domain, len(got.Tools))
		})
	}
}

func roundTrip(t testing.TB, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A client that plays a real synth dialogue through MCP — each tool
// call of it a tools/call, each of its agent messages a say — gets the
// dialogue's tool results byte for byte and its customer's answers,
// and at the end the verifier's pass and outcome reward 1.
func TestReplayDialogues(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 4
	}
	env := newEnv(t, nil)
	for _, domain := range domains.Names() {
		t.Run(domain, func(t *testing.T) {
			_, dialogues := oracles(t, domain, n)
			cs := connect(t, env, domain, 0)
			calls, errs := 0, 0
			for i, dl := range dialogues {
				c, e, err := replay(cs, i, dl.TR)
				if err != nil {
					t.Fatalf("%s: %v", dl.BP.ID, err)
				}
				calls, errs = calls+c, errs+e
			}
			if calls == 0 {
				t.Fatal("the dialogues made no tool call")
			}
			t.Logf("%s: %d dialogues replayed; %d tool calls (%d errors) answered equal to the recorded results", domain, n, calls, errs)
		})
	}
}

// replay resets the episode to blueprint index and plays the dialogue
// tr; it returns the tool calls it compared and how many failed.
func replay(cs *sdk.ClientSession, index int, tr *record.Trajectory) (calls, errs int, err error) {
	ctx := context.Background()
	res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: mcp.PromptReset, Arguments: map[string]string{"index": strconv.Itoa(index)}})
	if err != nil {
		return 0, 0, err
	}
	msgs := tr.Messages
	if got := texts(res.Messages); len(got) != 1 || msgs[1].Role != "user" || got[0] != msgs[1].Content {
		return 0, 0, fmt.Errorf("reset says %q; the dialogue begins %q", got, msgs[1].Content)
	}
	for i := 2; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role != "assistant" {
			continue
		}
		for k, c := range m.ToolCalls {
			want := msgs[i+1+k]
			r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)})
			if err != nil {
				return calls, errs, fmt.Errorf("message %d, %s: %w", i, c.Function.Name, err)
			}
			got := texts(r.Content)
			if want.Role != "tool" || len(got) != 1 || got[0] != want.Content || r.IsError != strings.HasPrefix(want.Content, "Error: ") {
				return calls, errs, fmt.Errorf("message %d, %s(%s): MCP answered %q (isError %v); the dialogue has %q", i, c.Function.Name, c.Function.Arguments, got, r.IsError, want.Content)
			}
			calls++
			if r.IsError {
				errs++
			}
		}
		if len(m.ToolCalls) > 0 {
			continue
		}
		res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: mcp.PromptSay, Arguments: map[string]string{"message": m.Content}})
		if err != nil {
			return calls, errs, fmt.Errorf("message %d: %w", i, err)
		}
		var want []string
		for j := i + 1; j < len(msgs) && msgs[j].Role == "user"; j++ {
			want = append(want, msgs[j].Content)
		}
		if got := texts(res.Messages); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			return calls, errs, fmt.Errorf("message %d: the customer answered %q; the dialogue has %q", i, got, want)
		}
	}
	v, err := episode(cs)
	if err != nil {
		return calls, errs, err
	}
	if !v.Done || v.Verdict == nil || !v.Verdict.Passed || v.OutcomeReward == nil || *v.OutcomeReward != 1 || v.Ending != tr.Ending {
		return calls, errs, fmt.Errorf("after the dialogue: done %v ending %q (want %q) verdict %+v", v.Done, v.Ending, tr.Ending, v.Verdict)
	}
	return calls, errs, nil
}

// episode reads the episode resource.
func episode(cs *sdk.ClientSession) (*serve.SessionView, error) {
	res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: mcp.EpisodeURI})
	if err != nil {
		return nil, err
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" {
		return nil, fmt.Errorf("%s: %d contents", mcp.EpisodeURI, len(res.Contents))
	}
	var v serve.SessionView
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// texts are the text parts of MCP content or prompt messages.
func texts[T any](items []T) []string {
	out := []string{}
	for _, it := range items {
		var c sdk.Content
		switch v := any(it).(type) {
		case sdk.Content:
			c = v
		case *sdk.PromptMessage:
			c = v.Content
		}
		if tc, ok := c.(*sdk.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

// A bad call is a tool result marked isError whose text is what synth's
// dialogue gets for it (tools.Toolkit.Call on the same state), never a
// protocol error: an unknown tool, arguments that fail the schema or are
// not an object, a handler's failure.
func TestBadCalls(t *testing.T) {
	d, err := domains.Load("retail", seed)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newEnv(t, nil), "retail", 0)
	for _, tc := range []struct{ name, args string }{
		{"no_such_tool", `{}`},
		{"get_order_details", `{}`},
		{"get_order_details", `{"order_id": 5}`},
		{"get_order_details", `{"order_id": "#W0000000", "extra": true}`},
		{"get_order_details", `["#W0000000"]`},
		{"get_order_details", `{"order_id": "#W0000000"}`},
		{"cancel_pending_order", `{"order_id": "#W0000000", "reason": "no longer needed"}`},
	} {
		// Each on a fresh episode: five failed calls end a dialogue.
		if _, err := cs.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: mcp.PromptReset}); err != nil {
			t.Fatal(err)
		}
		want := d.Tools.Call(context.Background(), d.Base.NewState(), tc.name, tc.args)
		if !want.Err {
			t.Fatalf("%s(%s) succeeds in the domain: not a bad call", tc.name, tc.args)
		}
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tc.name, Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Errorf("%s(%s): protocol error %v; want a tool result with isError", tc.name, tc.args, err)
			continue
		}
		if got := texts(res.Content); !res.IsError || len(got) != 1 || got[0] != want.Output {
			t.Errorf("%s(%s): isError %v, %q; want isError and %q", tc.name, tc.args, res.IsError, got, want.Output)
		}
	}
}

// A reset starts the task again on a fresh copy of the database: a
// dialogue whose writes ran replays the same after it, and after the
// dialogue has ended calls are refused with a pointer to the reset.
func TestResetIsFresh(t *testing.T) {
	_, dialogues := oracles(t, "retail", 6)
	var dl *testplay.Dialogue
	for i := range dialogues {
		if len(dialogues[i].BP.Actions) > 0 && dialogues[i].TR.Ending == record.EndStop {
			dl = &dialogues[i]
		}
	}
	if dl == nil {
		t.Fatal("no dialogue with a write among the first 6")
	}
	cs := connect(t, newEnv(t, nil), "retail", 0)
	for round := range 2 {
		if _, _, err := replay(cs, dl.BP.Index, dl.TR); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "list_all_product_types", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(res.Content); !res.IsError || len(got) != 1 || !strings.Contains(got[0], "has ended") || !strings.Contains(got[0], mcp.PromptReset) {
		t.Errorf("a call after the end: isError %v %q", res.IsError, got)
	}
	for _, args := range []map[string]string{{"index": "x"}, {"blueprint_id": "b1"}, {"turns": "3"}} {
		if _, err := cs.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: mcp.PromptReset, Arguments: args}); err == nil {
			t.Errorf("reset %v: no error", args)
		}
	}
}
