package credit

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/record"
)

// cancelTask: find the user, read the order, cancel it.
func cancelTask() *record.Blueprint {
	return &record.Blueprint{
		ID:    "bp1",
		Goals: []record.Goal{{Intent: "cancel_pending_order", Kind: record.GoalWrite}},
		Actions: []record.Action{
			{Tool: "find_user_id_by_email", Kind: record.KindRead, Arguments: json.RawMessage(`{"email":"ann@x.com"}`)},
			{Tool: "get_order_details", Kind: record.KindRead, Arguments: json.RawMessage(`{"order_id":"#W1"}`)},
			{Tool: "cancel_pending_order", Kind: record.KindWrite, Arguments: json.RawMessage(`{"order_id":"#W1","reason":"no longer needed"}`), Needs: []int{1}},
		},
		Outputs: []record.Output{{Name: "refund", Value: "$12.50"}},
	}
}

func call(id, tool, args string) record.Message {
	return record.Message{Role: "assistant", ToolCalls: []record.ToolCall{{ID: id, Type: "function", Function: record.FunctionCall{Name: tool, Arguments: args}}}}
}

func result(id, tool, content string) record.Message {
	return record.Message{Role: "tool", ToolCallID: id, Name: tool, Content: content}
}

func say(role, text string) record.Message { return record.Message{Role: role, Content: text} }

// dialogue is the cancel task played out; write holds the cancel's arguments.
func dialogue(write string) *record.Trajectory {
	return &record.Trajectory{Messages: []record.Message{
		say("system", "policy"),
		say("user", "Hi, I want to cancel order #W1, it is no longer needed."), // 1
		say("assistant", "Sure. Could you give me your email address?"),        // 2
		say("user", "ann@x.com"), // 3
		call("a00000001", "find_user_id_by_email", `{"email":"ann@x.com"}`),                                          // 4
		result("a00000001", "find_user_id_by_email", "ann_1"),                                                        // 5
		call("a00000002", "get_order_details", `{"order_id":"#W1"}`),                                                 // 6
		result("a00000002", "get_order_details", `{"order_id":"#W1","total":12.5}`),                                  // 7
		say("assistant", "I'll cancel order #W1 (reason: no longer needed); the refund is $12.50. Shall I proceed?"), // 8
		say("user", "yes"), // 9
		call("a00000003", "cancel_pending_order", write),                      // 10
		result("a00000003", "cancel_pending_order", `{"status":"cancelled"}`), // 11
		say("assistant", "Done. Anything else?"),                              // 12
	}}
}

func TestLabelVerified(t *testing.T) {
	bp := cancelTask()
	tr := dialogue(`{"order_id":"#W1","reason":"no longer needed"}`)
	got := Label(bp, tr, &record.Verdict{Passed: true})
	one := 1
	want := Labels{ChainLength: 3, Progress: 3, Coverage: 1, Pivotal: -1, Correcting: -1, MistakeFrom: -1, Outcome: &one,
		Steps: []Step{{Message: 4, By: ByCall}, {Message: 6, By: ByCall}, {Message: 10, By: ByCall}}, Turns: []Turn{
			{Message: 2, Class: ClassAsk, Gold: ClassAsk, Serves: -1, Calls: []Call{}},
			{Message: 4, Class: ClassRead, Gold: ClassRead, OnChain: true, Serves: -1, Progress: 1, Calls: []Call{{Tool: "find_user_id_by_email", Kind: "read", Action: 0, Args: []Arg{}}}},
			{Message: 6, Class: ClassRead, Gold: ClassRead, OnChain: true, Serves: 2, Progress: 2, Calls: []Call{{Tool: "get_order_details", Kind: "read", Action: 1, Args: []Arg{}}}},
			{Message: 8, Class: ClassConfirm, Gold: ClassConfirm, OnChain: true, Serves: 2, Progress: 2, Calls: []Call{}},
			{Message: 10, Class: ClassWrite, Gold: ClassWrite, OnChain: true, Serves: 2, Progress: 3, Calls: []Call{{Tool: "cancel_pending_order", Kind: "write", Action: 2, Args: []Arg{
				{Path: "$.order_id", Source: SourceUser, Message: 1},
				{Path: "$.reason", Source: SourceUser, Message: 1},
			}}}},
			{Message: 12, Class: ClassInform, Gold: ClassInform, Serves: -1, Progress: 3, Calls: []Call{}},
		}}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		t.Fatalf("labels:\n%s", g)
	}
}

func TestLabelPivotal(t *testing.T) {
	bp := cancelTask()
	cases := []struct {
		name    string
		tr      *record.Trajectory
		v       *record.Verdict
		pivotal int
		outcome any
	}{
		{"wrong argument", dialogue(`{"order_id":"#W2","reason":"no longer needed"}`), &record.Verdict{Checks: []record.Check{{Name: "state"}}}, 10, 0},
		{"right but unverified", dialogue(`{"order_id":"#W1","reason":"no longer needed"}`), nil, -1, nil},
		{"omission names the message", func() *record.Trajectory {
			tr := dialogue(`{"order_id":"#W1","reason":"no longer needed"}`)
			tr.Messages[8].Content = "I'll cancel order #W1. Shall I proceed?"
			return tr
		}(), &record.Verdict{Checks: []record.Check{{Name: "outputs", Reason: "message 9: the refund was never said"}}}, 8, 0},
		{"unconfirmed write", func() *record.Trajectory {
			tr := dialogue(`{"order_id":"#W1","reason":"no longer needed"}`)
			tr.Messages[8].Content = "Your order holds one item."
			return tr
		}(), &record.Verdict{Checks: []record.Check{{Name: "confirmation"}}}, 10, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Label(bp, c.tr, c.v)
			if got.Pivotal != c.pivotal {
				t.Errorf("pivotal %d, want %d", got.Pivotal, c.pivotal)
			}
			b, _ := json.Marshal(got.Outcome)
			w, _ := json.Marshal(c.outcome)
			if string(b) != string(w) {
				t.Errorf("outcome %s, want %s", b, w)
			}
		})
	}
	// A figure a tool gave and nobody said: owed at the agent's first
	// words after it.
	owed := cancelTask()
	owed.Outputs = []record.Output{{Name: "total", Value: "12.5"}}
	tr := dialogue(`{"order_id":"#W1","reason":"no longer needed"}`)
	tr.Messages[8].Content = "I'll cancel order #W1. Shall I proceed?"
	if got := Label(owed, tr, &record.Verdict{Checks: []record.Check{{Name: "outputs", Reason: "the agent never told the user the total (12.5)"}}}); got.Pivotal != 8 {
		t.Errorf("unsaid output: pivotal %d, want 8", got.Pivotal)
	}
}

// TestLabelNothing: no blueprint and no dialogue (a session not yet
// started) label as an empty chain, without a panic.
func TestLabelNothing(t *testing.T) {
	got := Label(nil, nil, nil)
	if got.ChainLength != 0 || got.Coverage != 1 || got.Outcome != nil || got.Pivotal != -1 || len(got.Turns) != 0 {
		t.Fatalf("%+v", got)
	}
}

// TestLabelRecovery: a recovery's mistake starts at the first assistant
// turn that is not the oracle's (Departs), which can be turns before the
// proposal the customer turned down (pivotal): the near-miss pick is
// announced at the search's report. Every turn from there to the
// correction, exclusive, is the mistake that weighs 0.
func TestLabelRecovery(t *testing.T) {
	cases := []struct {
		name     string
		departs  int
		from     int
		mistakes []int
	}{
		{"departure not known: the proposal", 0, 8, []int{8}},
		{"departs at the proposal", 8, 8, []int{8}},
		{"departs at the read before it", 6, 6, []int{6, 8}},
		{"departs at a tool result: the next turn", 5, 6, []int{6, 8}},
		{"departs at the first turn", 2, 2, []int{2, 4, 6, 8}},
		{"departs after the proposal: the proposal", 9, 8, []int{8}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := dialogue(`{"order_id":"#W1","reason":"no longer needed"}`)
			tr.Kind = record.KindRecovery
			tr.Corrections = []int{9}
			tr.Departs = tc.departs
			got := Label(cancelTask(), tr, &record.Verdict{Passed: true})
			if got.Pivotal != 8 || got.Correcting != 10 || got.MistakeFrom != tc.from {
				t.Fatalf("pivotal %d correcting %d mistake_from %d, want 8, 10 and %d", got.Pivotal, got.Correcting, got.MistakeFrom, tc.from)
			}
			if m := Mistakes(got); !slices.Equal(m, tc.mistakes) {
				t.Fatalf("mistakes %v, want %v", m, tc.mistakes)
			}
		})
	}
	// An oracle's dialogue has no mistake, wherever it departs.
	tr := dialogue(`{"order_id":"#W1","reason":"no longer needed"}`)
	tr.Departs = 6
	if got := Label(cancelTask(), tr, &record.Verdict{Passed: true}); got.MistakeFrom != -1 || Mistakes(got) != nil {
		t.Fatalf("oracle dialogue: mistake_from %d, mistakes %v", got.MistakeFrom, Mistakes(got))
	}
}

func TestProvenanceFromTool(t *testing.T) {
	var p provenance
	p.user(1, "It's the order with the blue kettle")
	p.tool(3, `{"orders":[{"id":"#W9","items":["kettle"]}],"n":2}`)
	got := p.args(map[string]any{"order_id": "#W9", "n": 2.0, "item": "kettle"})
	want := []Arg{
		{Path: "$.item", Source: SourceUser, Message: 1},
		{Path: "$.n", Source: SourceTool, Message: 3, At: "$.n"},
		{Path: "$.order_id", Source: SourceTool, Message: 3, At: "$.orders[0].id"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
}

// TestProvenanceRespelt: a value a tool result holds spelt otherwise
// than walk spells it (a number as 1.50 or 2e3, an integer past
// float64's precision, a string with an escape) is found in it, as
// parsing the result finds it; a value the result does not hold is not.
func TestProvenanceRespelt(t *testing.T) {
	for _, tc := range []struct {
		raw, text, at string // at "": not found
	}{
		{`{"price":1.50}`, "1.5", "$.price"},
		{`{"n":2e3}`, "2000", "$.n"},
		{`{"n":2E+3}`, "2000", "$.n"},
		{`[9007199254740993]`, "9007199254740992", "$[0]"},
		{`{"id":"\u0032\u0031"}`, "21", "$.id"},
		{`{"city":"caf\u00e9"}`, "café", "$.city"},
		{`{"name":"O\u0027Brien"}`, "O'Brien", "$.name"},
		{`{"a":"x\"","n":2}`, "2", "$.n"},
		{`{"price":1.50,"id":"01610"}`, "01610", "$.id"},
		{`{"price":1.50,"id":"1610"}`, "01610", ""},
		{`{"price":1.25}`, "1.5", ""},
		{`{"n":"2e3"}`, "2000", ""},
		{`  7 `, "7", "$"},
	} {
		var p provenance
		p.tool(0, tc.raw)
		o, ok := p.first(tc.text)
		if ok != (tc.at != "") || o.path != tc.at {
			t.Errorf("%s in %s: got %q %v, want %q", tc.text, tc.raw, o.path, ok, tc.at)
		}
	}
}

// TestHolderAsResultsCome: a value no result held (no customer message
// said) is found in one that comes later, and a value's first holder
// (sayer) stays it.
func TestHolderAsResultsCome(t *testing.T) {
	var p provenance
	p.tool(1, `{"a":"x"}`)
	if got := p.holder("y"); got != -1 {
		t.Fatalf("y held by %d before any result holds it", got)
	}
	p.tool(3, `{"b":"y"}`)
	p.tool(5, `{"c":"y","d":"x"}`)
	for _, tc := range []struct {
		text string
		want int
	}{{"y", 1}, {"x", 0}, {"y", 1}} {
		if got := p.holder(tc.text); got != tc.want {
			t.Errorf("%s: held by %d, want %d", tc.text, got, tc.want)
		}
	}
	p.user(6, "It is the Blue kettle")
	if got := p.sayer("red"); got != -1 {
		t.Fatalf("red said by %d before anyone says it", got)
	}
	p.user(8, "the red one, not the blue")
	p.user(10, "Red.")
	for _, tc := range []struct {
		text string
		want int
	}{{"Red", 1}, {"blue", 0}, {"red", 1}, {"re", -1}} {
		if got := p.sayer(tc.text); got != tc.want {
			t.Errorf("%s: said by %d, want %d", tc.text, got, tc.want)
		}
	}
}

// TestScalarsAsDecoded: scalars lists what indexValues finds by
// decoding, and pathOf the paths it gives them, or scalars gives nil
// for a text it cannot read so.
func TestScalarsAsDecoded(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		read bool // scalars reads it
	}{
		{`{"user":{"id":"u1","zip":"01610","tags":["a","",true,false,null]},"n":[1.50,2e3,-0,7]}`, true},
		{` { "a" : "x" , "b" :[ "y" ,{"a":"a"}] } `, true},
		{`{"key":"value","other":"key"}`, true},
		{`{"b":["x",{"z":"y","a":"y"}],"a":{"c":"x","b c":7},"x":[[1,"x",7],"x"],"7":"7"}`, true},
		{`[[["deep",2],[3,"deep"]],{"k":[2,"deep"]}]`, true},
		{`"just a string"`, true},
		{`[9007199254740993, 1E+2]`, true},
		{`{"a":"x","a":"y"}`, false},
		{`{"a":"\u0041"}`, false},
		{`[1e999]`, false},
		{`W123`, false},
		{`{"a":`, false},
		{"[\"\xff\"]", false},
	} {
		got := scalars(tc.raw)
		if (got != nil) != tc.read {
			t.Errorf("%s: read %v, want %v", tc.raw, got != nil, tc.read)
			continue
		}
		if got == nil {
			continue
		}
		want := map[string]bool{}
		index := indexValues(tc.raw)
		for v, path := range index {
			want[v] = true
			if p, ok := pathOf(tc.raw, v); p != path || !ok {
				t.Errorf("%s: %s at %q %v, want %q", tc.raw, v, p, ok, path)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", tc.raw, got, want)
		}
		if _, ok := pathOf(tc.raw, "absent"); ok {
			t.Errorf("%s: absent found", tc.raw)
		}
	}
}

// TestStepsDoneWithoutTheirCall: a read the dialogue did without is done
// by the write that needs it, a read no write needs by a verified
// outcome; an unverified dialogue leaves the latter undone.
func TestStepsDoneWithoutTheirCall(t *testing.T) {
	bp := cancelTask()
	bp.Actions = append(bp.Actions, record.Action{Tool: "get_user_details", Kind: record.KindRead, Arguments: json.RawMessage(`{"user_id":"ann_1"}`)})
	tr := dialogue(`{"order_id":"#W1","reason":"no longer needed"}`)
	// The agent knew the order: no get_order_details.
	tr.Messages = append(tr.Messages[:6], tr.Messages[8:]...)
	cases := []struct {
		name     string
		tr       *record.Trajectory
		v        *record.Verdict
		steps    []Step
		coverage float64
	}{
		{"verified", nil, &record.Verdict{Passed: true},
			[]Step{{4, ByCall}, {8, ByWrite}, {8, ByCall}, {10, ByOutcome}}, 1},
		{"unverified", nil, nil,
			[]Step{{4, ByCall}, {8, ByWrite}, {8, ByCall}, {-1, ""}}, 0.75},
	}
	// A verified dialogue that reached the cancel's state with another
	// tool: the state check vouches for the write.
	other := dialogue(`{"order_id":"#W1","reason":"no longer needed"}`)
	other.Messages = append(other.Messages[:6], other.Messages[8:]...)
	other.Messages[8].ToolCalls[0].Function.Name = "cancel_order"
	cases = append(cases, struct {
		name     string
		tr       *record.Trajectory
		v        *record.Verdict
		steps    []Step
		coverage float64
	}{"verified by another write", other, &record.Verdict{Passed: true},
		[]Step{{4, ByCall}, {10, ByOutcome}, {10, ByOutcome}, {10, ByOutcome}}, 1})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			trc := tr
			if c.tr != nil {
				trc = c.tr
			}
			got := Label(bp, trc, c.v)
			if !reflect.DeepEqual(got.Steps, c.steps) || got.Coverage != c.coverage {
				t.Fatalf("steps %+v coverage %v, want %+v and %v", got.Steps, got.Coverage, c.steps, c.coverage)
			}
			if last := got.Turns[len(got.Turns)-1]; last.Progress != got.Progress {
				t.Errorf("last turn's progress %d, labels' %d", last.Progress, got.Progress)
			}
		})
	}
}

func TestTextClass(t *testing.T) {
	cases := []struct{ text, want string }{
		{"Could you give me your email address?", ClassAsk},
		{"I'd be glad to help! First, could you give me your user id?", ClassAsk},
		{"And do you want no checked bags, one checked bag or two checked bags?", ClassAsk},
		{"I'll cancel order #W1. Shall I proceed?", ClassConfirm},
		{"I'm sorry, but I can't make an exception to the policy. Anything else?", ClassRefuse},
		{"I'm transferring you to a human agent now.", ClassTransfer},
		{"The refund is $12.50. Is there anything else I can help with?", ClassInform},
		{"Have a great day!", ClassInform},
	}
	lb := newLabeler(nil, nil, &record.Blueprint{}, nil)
	for _, c := range cases {
		if got := lb.textClass(c.text); got != c.want {
			t.Errorf("%q: %s, want %s", c.text, got, c.want)
		}
	}
}

// TestGold: a forbidden request is refused before the next request's
// write; reading again what the next write needs is on its way to it.
func TestGold(t *testing.T) {
	bp := cancelTask()
	bp.Goals = append([]record.Goal{{Intent: "refuse:return_delivered_order_items", Kind: record.GoalRefuse}}, bp.Goals...)
	bp.Actions[2].Goal = 1
	tr := dialogue(`{"order_id":"#W1","reason":"no longer needed"}`)
	msgs := append([]record.Message{}, tr.Messages[:8]...)
	msgs = append(msgs,
		call("a00000004", "get_order_details", `{"order_id":"#W1"}`),                                        // 8: a re-read
		result("a00000004", "get_order_details", `{"order_id":"#W1","total":12.5}`),                         // 9
		say("assistant", "I'm sorry, but I can't return items of order #W1: the policy does not allow it."), // 10
	)
	msgs = append(msgs, tr.Messages[8:]...) // 11 confirm, 12 yes, 13 write, 14, 15 inform
	tr.Messages = msgs
	got := Label(bp, tr, &record.Verdict{Passed: true})
	var classes, golds []string
	for _, tu := range got.Turns {
		classes = append(classes, tu.Class)
		golds = append(golds, tu.Gold)
	}
	wantClasses := []string{ClassAsk, ClassRead, ClassRead, ClassRead, ClassRefuse, ClassConfirm, ClassWrite, ClassInform}
	wantGolds := []string{ClassAsk, ClassRead, ClassRead, ClassRead, ClassRefuse, ClassConfirm, ClassWrite, ClassInform}
	if !reflect.DeepEqual(classes, wantClasses) || !reflect.DeepEqual(golds, wantGolds) {
		t.Fatalf("classes %v golds %v", classes, golds)
	}
	if m, n := GoldRecall(got); m != n {
		t.Errorf("gold recall %d/%d", m, n)
	}
}

// TestFailedWriteDoesNoStep labels a tool error the customer recovers
// from (a first value the tool turns down, then another): the failed
// write is a write the gold asks for, off the chain, doing no step; the
// agent's relay asks; the write that goes through does the step, in a
// verified dialogue and one not (yet) verified alike.
func TestFailedWriteDoesNoStep(t *testing.T) {
	bp := cancelTask()
	first := `{"order_id":"#W1","reason":"ordered by mistake"}`
	final := `{"order_id":"#W1","reason":"no longer needed"}`
	tr := dialogue(final)
	msgs := slices.Clone(tr.Messages[:10])
	msgs[8] = say("assistant", "I'll cancel order #W1 (reason: ordered by mistake). Shall I proceed?")
	msgs = append(msgs,
		call("a00000004", "cancel_pending_order", first),                                                                 // 10
		result("a00000004", "cancel_pending_order", "Error: reason ordered by mistake is not accepted"),                  // 11
		say("assistant", "Sorry, that didn't go through: reason ordered by mistake is not accepted. What other reason?"), // 12
		say("user", "Then no longer needed."),                                                                            // 13
		say("assistant", "I'll cancel order #W1 (reason: no longer needed). Shall I proceed?"),                           // 14
		say("user", "yes"), // 15
		call("a00000003", "cancel_pending_order", final),                      // 16
		result("a00000003", "cancel_pending_order", `{"status":"cancelled"}`), // 17
		say("assistant", "Done. Anything else?"),                              // 18
	)
	tr.Messages = msgs
	for _, v := range []*record.Verdict{{Passed: true}, nil} {
		got := Label(bp, tr, v)
		if want := (Step{Message: 16, By: ByCall}); got.Steps[2] != want {
			t.Errorf("verdict %v: the cancel's step %+v, want %+v (the write that went through)", v, got.Steps[2], want)
		}
		byMsg := map[int]Turn{}
		for _, tu := range got.Turns {
			byMsg[tu.Message] = tu
		}
		failed := byMsg[10]
		if failed.Class != ClassWrite || failed.Gold != ClassWrite || failed.OnChain || failed.Progress != 2 || failed.Calls[0].Action != -1 {
			t.Errorf("verdict %v: the failed write is labelled %+v; want a write, gold write, off the chain, progress 2, no action", v, failed)
		}
		if relay := byMsg[12]; relay.Class != ClassAsk || relay.Progress != 2 {
			t.Errorf("verdict %v: the relay is labelled %+v; want an ask at progress 2", v, relay)
		}
		if ok := byMsg[16]; ok.Class != ClassWrite || ok.Gold != ClassWrite || !ok.OnChain || ok.Progress != 3 || ok.Calls[0].Action != 2 {
			t.Errorf("verdict %v: the write that went through is labelled %+v; want a write, gold write, on the chain, progress 3, action 2", v, ok)
		}
		if v != nil && (got.Progress != 3 || got.Pivotal != -1) {
			t.Errorf("verified: progress %d pivotal %d, want 3 and -1", got.Progress, got.Pivotal)
		}
	}
}

// TestRetriedWrite: a write the service fails for a reason the task
// declares to retry (a rate limit) is made again on the same yes, as
// verify's confirmation check allows: the retry is the gold, no mistake,
// and does the step, its confirmation serving it. After any other
// failure the write needs a yes of its own; another call than the one
// that failed is the gold's write made wrongly, without one.
func TestRetriedWrite(t *testing.T) {
	const (
		args    = `{"order_id":"#W1","reason":"no longer needed"}`
		limited = "Error: Rate limit exceeded: too many requests, try again shortly"
	)
	rateLimit := func(recovery string) []record.ToolFailure {
		return []record.ToolFailure{{Kind: "rate_limit", Tool: "cancel_pending_order", Call: 1, Error: strings.TrimPrefix(limited, toolError), Recovery: recovery}}
	}
	cases := []struct {
		name     string
		failures []record.ToolFailure
		retry    string // the arguments of the call after the failed one
		gold     string // the retry's gold
		pivotal  int    // in a failed dialogue
		retried  bool   // the retry runs on the first yes and does the step
	}{
		{"same call after a failure to retry", rateLimit("retry"), args, ClassWrite, 14, true},
		{"no failure declared", nil, args, ClassConfirm, 12, false},
		{"a failure whose recovery is a transfer", rateLimit("transfer"), args, ClassConfirm, 12, false},
		{"another call after a failure to retry", rateLimit("retry"), `{"order_id":"#W1","reason":"ordered by mistake"}`, ClassWrite, 12, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bp := cancelTask()
			bp.Failures = c.failures
			tr := dialogue(args)
			tr.Messages = append(slices.Clone(tr.Messages[:10]),
				call("a00000003", "cancel_pending_order", args),                       // 10
				result("a00000003", "cancel_pending_order", limited),                  // 11
				call("a00000004", "cancel_pending_order", c.retry),                    // 12
				result("a00000004", "cancel_pending_order", `{"status":"cancelled"}`), // 13
				say("assistant", "It went through on the second try. Anything else?"), // 14
			)
			for _, v := range []*record.Verdict{nil, {Passed: true}} {
				got := Label(bp, tr, v)
				retry := got.Turns[len(got.Turns)-2]
				if retry.Message != 12 || retry.Gold != c.gold {
					t.Errorf("verdict %v: the retry (message %d) has gold %s, want %s", v, retry.Message, retry.Gold, c.gold)
				}
				if !c.retried || v == nil {
					continue
				}
				if want := (Step{Message: 12, By: ByCall}); got.Steps[2] != want || !retry.OnChain || retry.Calls[0].Action != 2 {
					t.Errorf("the retry does step %+v, on chain %v, action %d; want %+v, on the chain, action 2", got.Steps[2], retry.OnChain, retry.Calls[0].Action, want)
				}
				if conf := got.Turns[3]; conf.Message != 8 || !conf.OnChain || conf.Serves != 2 {
					t.Errorf("the confirmation is labelled %+v; want message 8 on the chain serving the cancel", conf)
				}
			}
			if got := Label(bp, tr, &record.Verdict{Checks: []record.Check{{Name: "state"}}}); got.Pivotal != c.pivotal {
				t.Errorf("failed: pivotal %d, want %d", got.Pivotal, c.pivotal)
			}
		})
	}
}

// TestHandoverAttempt: a write the task's service fails for good (a
// declined payment, whose recovery is a transfer) left the ground truth
// for the handover, yet the policy calls for it until it fails: it is
// proposed and made as the gold says, and the one the service fails is
// no mistake; one that goes through is a wrong write.
func TestHandoverAttempt(t *testing.T) {
	const args = `{"order_id":"#W1","reason":"no longer needed"}`
	bp := cancelTask()
	bp.Outputs = nil
	bp.Actions[2] = record.Action{Tool: "transfer_to_human_agents", Kind: record.KindGeneric, Arguments: json.RawMessage(`{"summary":"payment declined"}`)}
	bp.Failures = []record.ToolFailure{{Kind: "declined_payment", Tool: "cancel_pending_order", Call: 1, Error: "Payment declined", Recovery: "transfer"}}
	cases := []struct {
		name    string
		result  string // the write's
		gold    map[int]string
		pivotal int // in a failed dialogue
	}{
		{"the service fails it", "Error: Payment declined", map[int]string{8: ClassConfirm, 10: ClassWrite, 12: ClassTransfer}, 14},
		{"it goes through", `{"status":"cancelled"}`, map[int]string{8: ClassConfirm, 10: ClassWrite}, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := dialogue(args)
			tr.Messages = append(slices.Clone(tr.Messages[:10]),
				call("a00000003", "cancel_pending_order", args),                                 // 10
				result("a00000003", "cancel_pending_order", c.result),                           // 11
				call("a00000004", "transfer_to_human_agents", `{"summary":"payment declined"}`), // 12
				result("a00000004", "transfer_to_human_agents", "Transfer successful"),          // 13
				say("assistant", "I'm transferring you to a human agent."),                      // 14
			)
			got := Label(bp, tr, &record.Verdict{Checks: []record.Check{{Name: "state"}}})
			for _, tu := range got.Turns {
				if want, ok := c.gold[tu.Message]; ok && tu.Gold != want {
					t.Errorf("message %d: gold %s, want %s", tu.Message, tu.Gold, want)
				}
			}
			if got.Pivotal != c.pivotal {
				t.Errorf("pivotal %d, want %d", got.Pivotal, c.pivotal)
			}
		})
	}
}
