package verify_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/usersim"
	"github.com/synth-data/synth/verify"
)

// episode is a blueprint with the oracle's dialogue of it.
type episode struct {
	bp *record.Blueprint
	tr *record.Trajectory
}

type fixture struct {
	d    *domain.Domain
	v    *verify.Verifier
	eps  []episode
	kind func(string) string
}

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  error
)

// loadFixture simulates the first 32 default blueprints once.
func loadFixture(t *testing.T) *fixture {
	t.Helper()
	fixOnce.Do(func() {
		d, err := domains.Load("retail", 1)
		if err != nil {
			fixErr = err
			return
		}
		sch, err := schemas.Compile()
		if err != nil {
			fixErr = err
			return
		}
		g, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 1, Writes: blueprints.Range{Min: 0, Max: 5}, Reads: blueprints.Range{Min: 2, Max: 7}, Refusals: 0.2, Behaviors: usersim.Profiles()})
		if err != nil {
			fixErr = err
			return
		}
		f := &fixture{d: d, v: verify.ForDomain(d, sch), kind: d.Tools.Kind}
		for i := range 32 {
			bp, err := g.Generate(context.Background(), i)
			if err != nil {
				fixErr = err
				return
			}
			tr, err := embedded.Simulate(context.Background(), d, bp, 60)
			if err != nil {
				fixErr = err
				return
			}
			f.eps = append(f.eps, episode{bp, tr})
		}
		fix = f
	})
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	return fix
}

// pick returns the first episode satisfying ok.
func (f *fixture) pick(t *testing.T, what string, ok func(episode) bool) episode {
	t.Helper()
	for _, e := range f.eps {
		if ok(e) {
			return e
		}
	}
	t.Fatalf("no episode with %s", what)
	return episode{}
}

func clone(t *testing.T, tr *record.Trajectory) *record.Trajectory {
	t.Helper()
	raw, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var out record.Trajectory
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// call locates one tool call: message index and position in it.
type call struct{ msg, pos int }

func (f *fixture) calls(tr *record.Trajectory, match func(record.ToolCall) bool) []call {
	var out []call
	for i, m := range tr.Messages {
		for j, c := range m.ToolCalls {
			if match(c) {
				out = append(out, call{i, j})
			}
		}
	}
	return out
}

func (f *fixture) writes(tr *record.Trajectory) []call {
	return f.calls(tr, func(c record.ToolCall) bool { return f.kind(c.Function.Name) == record.KindWrite })
}

func named(name string) func(record.ToolCall) bool {
	return func(c record.ToolCall) bool { return c.Function.Name == name }
}

// resultOf finds the tool message answering a call id.
func resultOf(tr *record.Trajectory, id string) int {
	for i, m := range tr.Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return i
		}
	}
	return -1
}

func lastUserBefore(tr *record.Trajectory, i int) int {
	for j := i - 1; j >= 0; j-- {
		if tr.Messages[j].Role == "user" {
			return j
		}
	}
	return -1
}

func argsOf(c record.ToolCall) map[string]any {
	var m map[string]any
	_ = json.Unmarshal([]byte(c.Function.Arguments), &m)
	return m
}

func setArg(t *testing.T, c *record.ToolCall, key string, v any) {
	t.Helper()
	m := argsOf(*c)
	m[key] = v
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	c.Function.Arguments = string(raw)
}

func remove(msgs []record.Message, i int) []record.Message {
	return slices.Delete(slices.Clone(msgs), i, i+1)
}

func userOrders(t *testing.T, f *fixture, uid string) []string {
	t.Helper()
	u, ok := f.d.Base.Get("users", uid)
	if !ok {
		t.Fatalf("no user %s", uid)
	}
	raw, _ := json.Marshal(u)
	var obj struct {
		Orders []string `json:"orders"`
	}
	_ = json.Unmarshal(raw, &obj)
	return obj.Orders
}

func orderOwner(f *fixture, id string) string {
	o, ok := f.d.Base.Get("orders", id)
	if !ok {
		return ""
	}
	raw, _ := json.Marshal(o)
	var obj struct {
		UserID string `json:"user_id"`
	}
	_ = json.Unmarshal(raw, &obj)
	return obj.UserID
}

func TestTampering(t *testing.T) {
	f := loadFixture(t)
	ctx := context.Background()

	// Every episode of the oracle passes as it is.
	for _, e := range f.eps {
		if v := f.v.Verify(ctx, e.bp, e.tr); !v.Passed {
			c := v.Failed()
			t.Fatalf("blueprint %d (%s): the oracle's dialogue fails %s: %s", e.bp.Index, e.bp.Behavior, c.Name, c.Reason)
		}
	}

	// A task with two order writes and an order read, and one whose
	// output is said in exactly one message that is not a proposal.
	multi := f.pick(t, "two order writes", func(e episode) bool {
		n := 0
		for _, w := range f.writes(e.tr) {
			if _, ok := argsOf(e.tr.Messages[w.msg].ToolCalls[w.pos])["order_id"]; ok {
				n++
			}
		}
		return n >= 2 && len(f.calls(e.tr, named("get_order_details"))) > 0
	})
	said := f.pick(t, "an output said once", func(e episode) bool {
		if len(e.bp.Outputs) == 0 {
			return false
		}
		n, at := 0, -1
		for i, m := range e.tr.Messages {
			if m.Role == "assistant" && strings.Contains(m.Content, e.bp.Outputs[0].Value) {
				n, at = n+1, i
			}
		}
		if n != 1 || at == len(e.tr.Messages)-1 {
			return false
		}
		for _, w := range f.writes(e.tr) {
			if w.msg > at && lastUserBefore(e.tr, w.msg) == at+1 {
				return false // a proposal: removing it breaks the confirmation first
			}
		}
		return true
	})

	firstWrite := func(tr *record.Trajectory) *record.ToolCall {
		w := f.writes(tr)[0]
		return &tr.Messages[w.msg].ToolCalls[w.pos]
	}
	cases := []struct {
		name   string
		ep     episode
		mutate func(t *testing.T, tr *record.Trajectory)
		want   []string // the first failed check must be one of these
	}{
		{"write on another user's order", multi, func(t *testing.T, tr *record.Trajectory) {
			c := firstWrite(tr)
			own := orderOwner(f, argsOf(*c)["order_id"].(string))
			for _, id := range f.d.Base.Keys("orders") {
				if orderOwner(f, id) != own {
					setArg(t, c, "order_id", id)
					return
				}
			}
		}, []string{verify.CheckAuth}},
		{"write on another of the user's orders, proposed as such", multi, func(t *testing.T, tr *record.Trajectory) {
			w := f.writes(tr)[0]
			c := &tr.Messages[w.msg].ToolCalls[w.pos]
			old := argsOf(*c)["order_id"].(string)
			for _, id := range userOrders(t, f, orderOwner(f, old)) {
				if id != old {
					setArg(t, c, "order_id", id)
					// Let the proposal name the new order, so that only the
					// outcome differs.
					for i := range tr.Messages[:w.msg] {
						if tr.Messages[i].Role == "assistant" {
							tr.Messages[i].Content = strings.ReplaceAll(tr.Messages[i].Content, old, id)
						}
					}
					return
				}
			}
			t.Skip("the user has a single order")
		}, []string{verify.CheckState}},
		{"yes replaced by hesitation", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.Messages[lastUserBefore(tr, f.writes(tr)[0].msg)].Content = "Hmm, let me think."
		}, []string{verify.CheckConfirmation}},
		{"yes replaced by a revision", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.Messages[lastUserBefore(tr, f.writes(tr)[1].msg)].Content = "Actually, make it the other card instead."
		}, []string{verify.CheckConfirmation}},
		{"tool answer deleted", multi, func(t *testing.T, tr *record.Trajectory) {
			c := f.calls(tr, named("get_order_details"))[0]
			tr.Messages = remove(tr.Messages, resultOf(tr, tr.Messages[c.msg].ToolCalls[c.pos].ID))
		}, []string{verify.CheckToolCallIDs}},
		{"write answer deleted", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.Messages = remove(tr.Messages, resultOf(tr, firstWrite(tr).ID))
		}, []string{verify.CheckToolCallIDs}},
		{"tool-call id not 9 alphanumerics", multi, func(t *testing.T, tr *record.Trajectory) {
			firstWrite(tr).ID = "abc"
		}, []string{verify.CheckToolCallIDs, verify.CheckRecordSchema}},
		{"tool-call id reused", multi, func(t *testing.T, tr *record.Trajectory) {
			ws := f.writes(tr)
			a := tr.Messages[ws[0].msg].ToolCalls[ws[0].pos].ID
			b := &tr.Messages[ws[1].msg].ToolCalls[ws[1].pos]
			tr.Messages[resultOf(tr, b.ID)].ToolCallID = a
			b.ID = a
		}, []string{verify.CheckToolCallIDs}},
		{"tool answer names another tool", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.Messages[resultOf(tr, firstWrite(tr).ID)].Name = "get_order_details"
		}, []string{verify.CheckToolCallIDs}},
		{"output never said", said, func(t *testing.T, tr *record.Trajectory) {
			for i, m := range tr.Messages {
				if m.Role == "assistant" && strings.Contains(m.Content, said.bp.Outputs[0].Value) {
					tr.Messages = remove(tr.Messages, i)
					return
				}
			}
		}, []string{verify.CheckOutputs}},
		{"final assistant message dropped", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.Messages = tr.Messages[:len(tr.Messages)-1]
		}, []string{verify.CheckEnding}},
		{"order read before authentication", multi, func(t *testing.T, tr *record.Trajectory) {
			c := f.calls(tr, named("get_order_details"))[0]
			res := resultOf(tr, tr.Messages[c.msg].ToolCalls[c.pos].ID)
			if res != c.msg+1 {
				t.Fatalf("the read's answer is not next to it")
			}
			pair := slices.Clone(tr.Messages[c.msg : c.msg+2])
			msgs := slices.Delete(slices.Clone(tr.Messages), c.msg, c.msg+2)
			auth := -1
			for i, m := range msgs {
				if len(m.ToolCalls) > 0 && strings.HasPrefix(m.ToolCalls[0].Function.Name, "find_user_id_by_") {
					auth = i
					break
				}
			}
			tr.Messages = slices.Insert(msgs, auth, pair...)
		}, []string{verify.CheckAuth}},
		{"schema-invalid arguments", multi, func(t *testing.T, tr *record.Trajectory) {
			c := f.calls(tr, named("get_order_details"))[0]
			tr.Messages[c.msg].ToolCalls[c.pos].Function.Arguments = `{"order_id": 5}`
		}, []string{verify.CheckToolSchema}},
		{"arguments not JSON", multi, func(t *testing.T, tr *record.Trajectory) {
			firstWrite(tr).Function.Arguments = `{"order_id": "#W1"`
		}, []string{verify.CheckToolSchema}},
		{"unknown tool", multi, func(t *testing.T, tr *record.Trajectory) {
			c := f.calls(tr, named("get_order_details"))[0]
			tr.Messages[c.msg].ToolCalls[c.pos].Function.Name = "get_order"
			tr.Messages[resultOf(tr, tr.Messages[c.msg].ToolCalls[c.pos].ID)].Name = "get_order"
		}, []string{verify.CheckToolSchema}},
		{"empty user message", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.Messages[1].Content = ""
		}, []string{verify.CheckTurns, verify.CheckRecordSchema}},
		{"blank user message", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.Messages[lastUserBefore(tr, len(tr.Messages)-1)].Content = "   "
		}, []string{verify.CheckTurns, verify.CheckRecordSchema}},
		{"stop token in the user's text", multi, func(t *testing.T, tr *record.Trajectory) {
			i := lastUserBefore(tr, len(tr.Messages)-1)
			tr.Messages[i].Content += " ###STOP###"
		}, []string{verify.CheckTurns}},
		{"text mixed with tool calls", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.Messages[f.writes(tr)[0].msg].Content = "Doing it now."
		}, []string{verify.CheckTurns}},
		{"no system message", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.Messages = tr.Messages[1:]
		}, []string{verify.CheckTurns, verify.CheckRecordSchema}},
		{"unknown role", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.Messages[1].Role = "narrator"
		}, []string{verify.CheckTurns, verify.CheckRecordSchema}},
		{"ended by max turns", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.Ending = record.EndMaxTurns
		}, []string{verify.CheckEnding}},
		{"claims a transfer", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.Ending = record.EndTransfer
		}, []string{verify.CheckEnding}},
		{"recorded state hash is wrong", multi, func(t *testing.T, tr *record.Trajectory) {
			tr.StateHash = strings.Repeat("0", 64)
		}, []string{verify.CheckState}},
		{"a write dropped", multi, func(t *testing.T, tr *record.Trajectory) {
			w := f.writes(tr)[1]
			res := resultOf(tr, tr.Messages[w.msg].ToolCalls[w.pos].ID)
			tr.Messages = remove(remove(tr.Messages, res), w.msg)
		}, []string{verify.CheckState}},
		{"two writes in one message", multi, func(t *testing.T, tr *record.Trajectory) {
			ws := f.writes(tr)
			second := tr.Messages[ws[1].msg].ToolCalls[ws[1].pos]
			res := resultOf(tr, second.ID)
			answer := tr.Messages[res]
			// Remove the second write and its answer, then make the first
			// message call both, answered in order.
			msgs := remove(remove(tr.Messages, res), ws[1].msg)
			msgs[ws[0].msg].ToolCalls = append(slices.Clone(msgs[ws[0].msg].ToolCalls), second)
			firstRes := -1
			for i, m := range msgs {
				if m.Role == "tool" && m.ToolCallID == msgs[ws[0].msg].ToolCalls[0].ID {
					firstRes = i
				}
			}
			tr.Messages = slices.Insert(msgs, firstRes+1, answer)
		}, []string{verify.CheckConfirmation}},
		{"a write repeated", multi, func(t *testing.T, tr *record.Trajectory) {
			w := f.writes(tr)[0]
			again := tr.Messages[w.msg].ToolCalls[w.pos]
			again.ID = "Rep3at3d0"
			res := resultOf(tr, tr.Messages[w.msg].ToolCalls[w.pos].ID)
			msgs := slices.Insert(slices.Clone(tr.Messages), res+1,
				record.Message{Role: "assistant", ToolCalls: []record.ToolCall{again}},
				record.Message{Role: "tool", ToolCallID: again.ID, Name: again.Function.Name, Content: "Error: already done"})
			tr.Messages = msgs
		}, []string{verify.CheckConfirmation}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := clone(t, tc.ep.tr)
			tc.mutate(t, tr)
			v := f.v.Verify(ctx, tc.ep.bp, tr)
			if v.Passed {
				t.Fatalf("the tampered dialogue of blueprint %d passes", tc.ep.bp.Index)
			}
			if c := v.Failed(); !slices.Contains(tc.want, c.Name) {
				t.Errorf("first failed check %s (%s), want one of %v", c.Name, c.Reason, tc.want)
			}
			// The original is untouched.
			if !f.v.Verify(ctx, tc.ep.bp, tc.ep.tr).Passed {
				t.Fatal("the mutation leaked into the fixture")
			}
		})
	}
}

// A dialogue does not pass for another task.
func TestVerifyAgainstOtherBlueprint(t *testing.T) {
	f := loadFixture(t)
	ctx := context.Background()
	checked := 0
	for i, a := range f.eps {
		b := f.eps[(i+1)%len(f.eps)]
		if a.bp.NWrites == 0 && b.bp.NWrites == 0 {
			continue // equal (unchanged) states; outputs may still differ
		}
		if v := f.v.Verify(ctx, b.bp, a.tr); v.Passed {
			t.Errorf("the dialogue of blueprint %d passes for blueprint %d", a.bp.Index, b.bp.Index)
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d pairs checked", checked)
	}
}

func TestVerdictShape(t *testing.T) {
	f := loadFixture(t)
	e := f.eps[0]
	v := f.v.Verify(context.Background(), e.bp, e.tr)
	var names []string
	for _, c := range v.Checks {
		names = append(names, c.Name)
		if !c.Passed || c.Reason != "" {
			t.Errorf("check %s: %+v", c.Name, c)
		}
	}
	// The checks every dialogue gets, in order, then one per policy rule.
	fixed := verify.Checks()
	if len(names) <= len(fixed) || !slices.Equal(names[:len(fixed)], fixed) {
		t.Fatalf("checks %v, want %v in order, then the rules", names, fixed)
	}
	for _, n := range names[len(fixed):] {
		if !strings.HasPrefix(n, verify.RulePrefix) {
			t.Errorf("check %s after the fixed ones is not a rule", n)
		}
	}
	if v.Failed() != nil {
		t.Error("Failed() of a passing verdict is not nil")
	}
	tr := clone(t, e.tr)
	tr.Ending = record.EndMaxTurns
	tr.Messages[1].Content = ""
	v = f.v.Verify(context.Background(), e.bp, tr)
	bad := 0
	for _, c := range v.Checks {
		if !c.Passed {
			bad++
			if c.Reason == "" {
				t.Errorf("failed check %s has no reason", c.Name)
			}
		}
	}
	// Every check runs even after one fails: the manifest reports a pass rate per check.
	if bad < 2 || v.Failed().Name == verify.CheckEnding {
		t.Errorf("two defects gave %d failed checks, first %s", bad, v.Failed().Name)
	}
}

func TestAffirmative(t *testing.T) {
	cases := []struct {
		s    string
		want bool
	}{
		{"yes", true},
		{"Yes.", true},
		{"YES!", true},
		{"yeah", true},
		{"Yep, go ahead.", true},
		{"sure", true},
		{"Sure thing", true},
		{"please do", true},
		{"Please do!", true},
		{"Correct, proceed.", true},
		{"That's right.", true},
		{"I confirm.", true},
		{"Yes, confirmed", true},
		{"All good, go ahead!", true},
		{"Everything looks right, yes.", true},
		{"Do it.", true},
		{"Yes please", true},
		{"no", false},
		{"No.", false},
		{"Nope", false},
		{"actually, make it X instead", false},
		{"Actually, yes but use X instead", false},
		{"wait", false},
		{"Wait, yes", false},
		{"Hold on.", false},
		{"Yes, I changed my mind", false},
		{"Don't do it", false},
		{"not yet", false},
		{"Hmm, let me think.", false},
		{"", false},
		{"What will that cost?", false},
		{"yesterday", false},
		{"I'm unsure", false},
		{"Surely you jest", false},
		{"yes? no.", false},
	}
	for _, tc := range cases {
		if got := verify.Affirmative(tc.s); got != tc.want {
			t.Errorf("Affirmative(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// The verifier is safe for concurrent use (run with -race) and gives the
// same verdicts as serially.
func TestVerifyConcurrent(t *testing.T) {
	f := loadFixture(t)
	ctx := context.Background()
	want := make([]string, len(f.eps))
	for i, e := range f.eps {
		raw, _ := json.Marshal(f.v.Verify(ctx, e.bp, e.tr))
		want[i] = string(raw)
	}
	got := make([]string, len(f.eps))
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(f.eps); i += 2 {
				raw, _ := json.Marshal(f.v.Verify(ctx, f.eps[i].bp, f.eps[i].tr))
				got[i] = string(raw)
			}
		}()
	}
	wg.Wait()
	if !slices.Equal(got, want) {
		t.Error("concurrent verdicts differ from serial ones")
	}
}
