package verify

import (
	"context"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// RulePrefix begins the name of a policy rule's check
// ("rule:KIND:NAME"), so verdicts, pass rates and DPO labels name the
// rule a dialogue broke and its kind.
const RulePrefix = "rule:"

// call is one tool call of a dialogue in order, with what it answered.
type call struct {
	msg    int // index of the assistant message holding it
	name   string
	raw    string
	args   map[string]any
	write  bool
	failed bool // a write the replay refused (reads are not replayed)
	// changed is whether a write changed the replayed state.
	changed bool
	// checks are the reads the policy needs before a write, on its
	// target as the replay held it then (model.WriteModel.CheckCalls).
	checks []pack.Call
	// computed holds a write's computed arguments as the pack's
	// functions give them on the state before it (computeErr: they give
	// none); refused is whether its tool refused it for one of the
	// pack's refusals.
	computed   map[string]any
	computeErr string
	refused    bool
	// permit runs the allow rules on the write's state before it.
	permit permitter
	// figures are a write's disclosed figures as it did them (nil: none
	// computed, as for a call the tool rejected).
	figures []figure
}

// replayed is the dialogue's calls run again on a fresh state: the state
// check compares where they end, and every rule sees what each write did
// without trusting the recorded results.
type replayed struct {
	calls []call
	hash  string // the state the writes end in
}

// replay runs the dialogue's writes on a fresh state, in order; a failed
// write changes nothing, as it did in the dialogue.
func (v *Verifier) replay(ctx context.Context, bp *record.Blueprint, tr *record.Trajectory) *replayed {
	st := v.d.Base.NewState()
	// The failures the task's runtime returned fail here too: a write
	// the service declined changed nothing.
	st.Inject(tools.FaultsOf(bp.Failures))
	var out []call
	for i, m := range tr.Messages {
		for _, c := range m.ToolCalls {
			cl := call{msg: i, name: c.Function.Name, raw: c.Function.Arguments, write: v.d.Tools.Kind(c.Function.Name) == record.KindWrite}
			cl.args, _ = tools.DecodeObject(c.Function.Arguments)
			if cl.write {
				if w := v.writeModel(c.Function.Name); w != nil && len(w.Checks) > 0 {
					if obj, ok := w.TargetRecord(st, cl.args); ok {
						cl.checks = w.CheckCalls(obj)
					}
				}
				w := v.writeModel(c.Function.Name)
				if w != nil && w.Computes() {
					cl.computed = maps.Clone(cl.args)
					if cl.computed == nil {
						cl.computed = map[string]any{}
					}
					if err := w.Compute(ctx, st, cl.computed, ""); err != nil {
						cl.computeErr = err.Error()
					}
				}
				cl.permit = permitOn(ctx, w, st, cl.args)
				var sc *model.Scopes
				if w != nil && len(v.d.Model.Disclosed(w.Name)) > 0 {
					s := v.d.Model.CallScopes(st, w, cl.args)
					sc = &s
				}
				before := st.Hash()
				res := v.d.Tools.Exec(ctx, st, c.Function.Name, c.Function.Arguments)
				cl.failed = res.Err
				if sc != nil && !cl.failed {
					cl.figures = figuresOf(w, v.d.Model, *sc, cl.args, res)
				}
				cl.refused = res.Err && w != nil && w.RefusedBy(res.Output)
				cl.changed = st.Hash() != before
			}
			out = append(out, cl)
		}
	}
	return &replayed{calls: out, hash: st.Hash()}
}

// writeModel is the domain model's write of that name, nil without one.
func (v *Verifier) writeModel(name string) *model.WriteModel {
	if v.d.Model == nil {
		return nil
	}
	return v.d.Model.Write(name)
}

// rules runs the domain's policy rules, one check each: first the rules
// that judge a write itself (its computed arguments, whether the policy
// allows it), then the rest in the domain's order. A wrong argument
// changes the figure the agent stated too, and the verdict's first
// failure names the cause, not what follows from it.
func (v *Verifier) rules(bp *record.Blueprint, tr *record.Trajectory, rp *replayed) []record.Check {
	if v.d.Model == nil || len(v.d.Model.Rules) == 0 {
		return nil
	}
	out := make([]record.Check, 0, len(v.d.Model.Rules))
	for _, first := range []bool{true, false} {
		for _, r := range v.d.Model.Rules {
			if judgesWrite(r.Kind) != first {
				continue
			}
			if why := v.rule(r, bp, tr, rp.calls); why != "" {
				out = append(out, fail(RuleCheck(r), "%s (policy: %q)", why, r.Policy))
			} else {
				out = append(out, pass(RuleCheck(r)))
			}
		}
	}
	return out
}

// judgesWrite tells the rule kinds that judge a write's own arguments
// or permission rather than what was said or done around it.
func judgesWrite(kind string) bool { return kind == pack.RuleComputed || kind == pack.RuleAllow }

// RuleCheck is the name of a rule's check.
func RuleCheck(r pack.Rule) string { return RulePrefix + r.Kind + ":" + r.Name }

// rule says how a dialogue breaks one rule, "" when it does not.
func (v *Verifier) rule(r pack.Rule, bp *record.Blueprint, tr *record.Trajectory, calls []call) string {
	switch r.Kind {
	case pack.RuleDisclose:
		return disclosed(r, bp, tr, calls)
	case pack.RuleFromCustomer:
		return fromCustomer(v.d.Model, r, bp, tr, calls)
	case pack.RuleMessage:
		return messaged(r, tr, calls)
	case pack.RuleSay:
		return saidBefore(r, tr, calls)
	case pack.RuleChangesState:
		for _, c := range calls {
			if c.write && !c.failed && !c.changed {
				return "message " + strconv.Itoa(c.msg) + ": " + c.name + " changed nothing"
			}
		}
	case pack.RuleOneWritePerYes:
		return oneWritePerYes(tr, calls)
	case pack.RuleRequested:
		return requested(bp, calls)
	case pack.RuleRefuse:
		return refused(bp, tr, calls)
	case pack.RuleGrounded:
		return grounded(tr, calls)
	case pack.RuleChecked:
		return checkedFirst(v.writeModel(r.Tool), bp, calls)
	case pack.RuleComputed:
		return computedArgs(r, calls)
	case pack.RuleAllow:
		return allowed(r, bp, tr, calls)
	}
	return ""
}

// computedArgs says which call of the rule's tool passes a computed
// argument other than the policy's, or asks for what the policy forbids.
func computedArgs(r pack.Rule, calls []call) string {
	for _, c := range calls {
		if c.name != r.Tool {
			continue
		}
		at := "message " + strconv.Itoa(c.msg) + ": " + c.name
		switch {
		case c.computeErr != "":
			return at + " where the policy gives no value: " + c.computeErr
		case c.refused:
			return at + " on a request the policy forbids"
		}
		for _, a := range r.Args {
			if want, got := c.computed[a], c.args[a]; tools.Text(want) != tools.Text(got) {
				return at + " with " + a + " " + tools.Text(got) + " where the policy gives " + tools.Text(want)
			}
		}
	}
	return ""
}

// grounded says which id a call passes that nothing said before it. What
// was said is lower-cased once, message by message, as the calls come.
func grounded(tr *record.Trajectory, calls []call) string {
	var said strings.Builder
	said.Grow(saidLen(tr.Messages))
	next := 0
	for _, c := range calls {
		for ; next < c.msg; next++ {
			addSaid(&said, tr.Messages[next])
		}
		if name, id := unsaidIn(said.String(), c.args); id != "" {
			return "message " + strconv.Itoa(c.msg) + ": " + c.name + " passes " + name + " " + strconv.Quote(id) + ", which neither the customer nor a tool result gave"
		}
	}
	return ""
}

// UnsaidID returns an id among a call's arguments that no customer
// message and no successful tool result in msgs holds ("" when every id
// was said). Ids are the values of arguments named like one (order_id,
// ServiceSid, webhook_token, item_ids), compared case aside, as a
// customer may write an id in lower case; an error that repeats an id
// ("no order #W1") is no source of it.
func UnsaidID(msgs []record.Message, args map[string]any) (name, id string) {
	var said strings.Builder
	said.Grow(saidLen(msgs))
	for _, m := range msgs {
		addSaid(&said, m)
	}
	return unsaidIn(said.String(), args)
}

// addSaid adds what a message gives the agent to know: a customer's
// words or a successful tool result, lower-cased.
func addSaid(b *strings.Builder, m record.Message) {
	if gives(m) {
		writeLower(b, m.Content)
		b.WriteByte('\n')
	}
}

func gives(m record.Message) bool {
	return m.Role == "user" || m.Role == "tool" && !strings.HasPrefix(m.Content, "Error")
}

// saidLen is the length of what msgs give, for a builder grown once: a
// dialogue's tool results are most of its text.
func saidLen(msgs []record.Message) int {
	n := 0
	for _, m := range msgs {
		if gives(m) {
			n += len(m.Content) + 1
		}
	}
	return n
}

// writeLower writes strings.ToLower(s) without the copy ToLower makes
// of a text with capitals, which for ASCII it is byte by byte.
func writeLower(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			b.WriteString(strings.ToLower(s))
			return
		}
	}
	for len(s) > 0 {
		i := 0
		for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
			i++
		}
		b.WriteString(s[:i])
		if i == len(s) {
			return
		}
		b.WriteByte(s[i] + 'a' - 'A')
		s = s[i+1:]
	}
}

// unsaidIn is UnsaidID over what was said, already lower-cased.
func unsaidIn(said string, args map[string]any) (name, id string) {
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if !model.IDName(name) {
			continue
		}
		for _, id := range idValues(args[name]) {
			if !strings.Contains(said, strings.ToLower(id)) {
				return name, id
			}
		}
	}
	return "", ""
}

// idValues are the ids an argument holds: a string, a number, or a list
// of them.
func idValues(v any) []string {
	switch x := v.(type) {
	case string:
		if x != "" {
			return []string{x}
		}
	case json.Number:
		return []string{x.String()}
	case float64:
		return []string{strconv.FormatFloat(x, 'f', -1, 64)}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, idValues(e)...)
		}
		return out
	}
	return nil
}

// fromCustomer: each text value of the rule's arguments was said by the
// customer before the yes to the write. An argument of ids the customer
// picks among a record's sub-records (the items to return) is held to
// the sub-record the customer must have named: its first described
// field ("Wireless Earbuds"), as a tool result showed it.
func fromCustomer(m *model.Model, r pack.Rule, bp *record.Blueprint, tr *record.Trajectory, calls []call) string {
	ids := identityWords(m, bp, calls)
	results := map[int]any{} // namedAs' decoded tool results, by message
	for _, c := range calls {
		if c.name != r.Tool || !c.write || c.failed {
			continue
		}
		// What the customer said before the yes: a value first said in
		// the yes itself was in the proposal before the customer gave it.
		_, yes := proposalBefore(tr, c.msg)
		var heard strings.Builder
		for _, m := range tr.Messages[:max(yes, 0)] {
			if m.Role == "user" {
				heard.WriteString(withoutIdentity(strings.ToLower(m.Content), ids))
				heard.WriteByte('\n')
			}
		}
		for _, path := range r.Args {
			v, ok := model.ValueAt(c.args, path)
			if !ok {
				continue
			}
			if pk := pickedIDs(m, r.Tool, path); pk != nil {
				for _, x := range elementsOf(v) {
					name := namedAs(tr.Messages[:c.msg], pk, tools.Text(x), results)
					if name != "" && !containsWords(heard.String(), strings.ToLower(name)) {
						return "message " + strconv.Itoa(c.msg) + ": " + r.Tool + "'s " + path + " " + strconv.Quote(tools.Text(x)) + " (" + name + ") was never named by the customer"
					}
				}
				continue
			}
			for _, x := range elementsOf(v) {
				s := tools.Text(x)
				if s != "" && !containsWords(heard.String(), strings.ToLower(s)) {
					return "message " + strconv.Itoa(c.msg) + ": " + r.Tool + "'s " + path + " " + strconv.Quote(s) + " was never given by the customer"
				}
			}
		}
	}
	return ""
}

// identity is what a customer says to be identified: per identify call
// of the dialogue, the values it passed (a user id; an email; a name and
// a zip), and the customer's name, lower-cased.
type identity struct {
	calls [][]string
	name  string
}

func identityWords(m *model.Model, bp *record.Blueprint, calls []call) identity {
	var id identity
	if bp != nil {
		id.name = strings.ToLower(bp.Persona.Name)
	}
	if m == nil || m.Users == nil {
		return id
	}
	for _, c := range calls {
		if !slices.ContainsFunc(m.Users.Identify, func(im model.IdentifyModel) bool { return im.Tool == c.name }) {
			continue
		}
		var vals []string
		for _, k := range slices.Sorted(maps.Keys(c.args)) {
			if s := strings.ToLower(tools.Text(c.args[k])); s != "" {
				vals = append(vals, s)
			}
		}
		if len(vals) > 0 {
			id.calls = append(id.calls, vals)
		}
	}
	return id
}

// identifies reports whether a sentence holds every value of one
// identify call: "1294 Adams Street" holds a last name, not an identity.
func (id identity) identifies(s string) bool {
	return slices.ContainsFunc(id.calls, func(vals []string) bool {
		return !slices.ContainsFunc(vals, func(v string) bool { return !strings.Contains(s, v) })
	})
}

// introductions are how a customer says its name as who it is.
var introductions = []string{"i'm ", "i am ", "this is ", "my name is ", "name's ", "the name is "}

// WithoutIntroduction is a customer's lower-cased message less its name
// (lower-cased) said as who it is ("I'm Rafael Brown."), in any
// sentence: the from_customer rule's reading, which the credit labels
// share, of a name never given as a passenger's.
func WithoutIntroduction(text, name string) string {
	if name == "" {
		return text
	}
	for _, intro := range introductions {
		text = strings.ReplaceAll(text, intro+name, intro)
	}
	return text
}

// withoutIdentity is a customer's message less what its identity
// sentences say to identify them ("This is Rafael Brown, user id
// rafael_brown_1234."): a name said only as who the customer is was never
// given as a passenger's. A sentence ends at . ! ? before a space or the
// end, so an email's dots stay inside it.
func withoutIdentity(text string, id identity) string {
	text = WithoutIntroduction(text, id.name)
	if len(id.calls) == 0 {
		return text
	}
	var b strings.Builder
	for start := 0; start < len(text); {
		end := len(text)
		for i := start; i < len(text); i++ {
			if text[i] == '\n' || strings.ContainsRune(".!?", rune(text[i])) && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n') {
				end = i + 1
				break
			}
		}
		s := text[start:end]
		if id.identifies(s) {
			for _, v := range append([]string{id.name}, slices.Concat(id.calls...)...) {
				if v != "" {
					s = strings.ReplaceAll(s, v, " ")
				}
			}
		}
		b.WriteString(s)
		start = end
	}
	return b.String()
}

// containsWords reports whether s occurs in text as whole words: a
// passenger "julia" is not named by the user id "julia_dubois_7776".
func containsWords(text, s string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], s)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(s)
		if (start == 0 || !wordByte(text[start-1])) && (end == len(text) || !wordByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

func wordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// pickedIDs is the pick of a write's argument that holds ids of
// sub-records the customer names by their description, or nil.
func pickedIDs(m *model.Model, tool, arg string) *model.PickModel {
	if m == nil {
		return nil
	}
	w := m.Write(tool)
	if w == nil {
		return nil
	}
	p := w.Param(arg)
	if p == nil || p.Source != model.SrcPick || p.Pick.ID == "" || len(p.Pick.Describe) == 0 {
		return nil
	}
	return p.Pick
}

// namedAs is what a customer calls the sub-record with id: the first
// described field of the object holding it in a tool result before the
// write ("" when no result shows it). results keeps the tool results
// decoded, by message (nil for one not JSON), for the next id: each
// item picked is looked for in the same ones.
func namedAs(msgs []record.Message, pk *model.PickModel, id string, results map[int]any) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "tool" || !strings.Contains(msgs[i].Content, id) {
			continue
		}
		v, ok := results[i]
		if !ok {
			var err error
			if v, err = tools.DecodeJSON(msgs[i].Content); err != nil {
				v = nil
			}
			results[i] = v
		}
		if v == nil {
			continue
		}
		if e := findByField(v, pk.ID, id, 0); e != nil {
			if s, ok := e[pk.Describe[0]].(string); ok {
				return s
			}
		}
	}
	return ""
}

// findByField finds the object whose field equals want.
func findByField(v any, field, want string, depth int) map[string]any {
	if depth > 16 {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		if f, ok := x[field]; ok && tools.Text(f) == want {
			return x
		}
		// Only objects and lists can hold the one sought, in key order.
		var buf [16]string
		inner := buf[:0]
		for k, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				inner = append(inner, k)
			}
		}
		slices.Sort(inner)
		for _, k := range inner {
			if e := findByField(x[k], field, want, depth+1); e != nil {
				return e
			}
		}
	case []any:
		for _, e := range x {
			if o := findByField(e, field, want, depth+1); o != nil {
				return o
			}
		}
	}
	return nil
}

// messaged: after each call of the rule's tool the agent's next words
// hold the exact message.
func messaged(r pack.Rule, tr *record.Trajectory, calls []call) string {
	for _, c := range calls {
		if c.name != r.After || c.failed {
			continue
		}
		next := ""
		for _, m := range tr.Messages[c.msg+1:] {
			if m.Role == "assistant" && m.Content != "" {
				next = m.Content
				break
			}
			if m.Role == "user" {
				break
			}
		}
		if !strings.Contains(next, r.Text) {
			return "message " + strconv.Itoa(c.msg) + ": after " + r.After + " the agent did not send " + strconv.Quote(r.Text)
		}
	}
	return ""
}

// saidBefore: before the yes to each write of the rule's tool, and
// after the last write of it that went through, the agent said one of
// its phrases: a reminder said for the first of two exchanges does not
// guard the second, and one said after a yes guards no write before it.
func saidBefore(r pack.Rule, tr *record.Trajectory, calls []call) string {
	from := 0 // the first message that can guard the next write
	for _, c := range calls {
		if c.name != r.Tool || !c.write || c.failed {
			continue
		}
		_, yes := proposalBefore(tr, c.msg)
		said := false
		for _, m := range tr.Messages[min(from, max(yes, 0)):max(yes, 0)] {
			if m.Role == "assistant" && pack.SaysAny(m.Content, r.Phrases) {
				said = true
				break
			}
		}
		if !said {
			return "message " + strconv.Itoa(c.msg) + ": " + r.Tool + " was confirmed without the agent saying " + strconv.Quote(r.Text) + " before the yes"
		}
		from = c.msg + 1
	}
	return ""
}

// requested: every successful write is a ground-truth write of the same
// tool on the same target (its first argument naming a key), so an
// action the customer did not ask for fails even when it changes
// nothing the state check sees.
func requested(bp *record.Blueprint, calls []call) string {
	type goldWrite struct {
		tool string
		args map[string]any
	}
	var gold []goldWrite
	for _, a := range bp.Actions {
		if a.Kind != record.KindWrite {
			continue
		}
		g := goldWrite{tool: a.Tool}
		g.args, _ = tools.DecodeObject(a.Arguments)
		gold = append(gold, g)
	}
	used := make([]bool, len(gold))
	for _, c := range calls {
		if !c.write || c.failed {
			continue
		}
		found := false
		for k, g := range gold {
			if !used[k] && g.tool == c.name && sameKeys(g.args, c.args) {
				used[k], found = true, true
				break
			}
		}
		if !found {
			return "message " + strconv.Itoa(c.msg) + ": " + c.name + " on what the customer did not ask for"
		}
	}
	return ""
}

// sameKeys reports whether two calls' id arguments (*_id, id) agree.
func sameKeys(a, b map[string]any) bool {
	for k, v := range a {
		if k != "id" && !strings.HasSuffix(k, "_id") || strings.Contains(k, "payment") {
			continue
		}
		if tools.Text(v) != tools.Text(b[k]) {
			return false
		}
	}
	return true
}

var refusalWords = regexp.MustCompile(`(?i)\b(cannot|can't|can not|unable|not able|not possible|only possible|not allowed|not permitted|won't be able)\b`)

// refused: a request the blueprint marks forbidden is refused in words,
// and no write of its tool runs.
func refused(bp *record.Blueprint, tr *record.Trajectory, calls []call) string {
	for gi, g := range bp.Goals {
		if g.Kind != record.GoalRefuse {
			continue
		}
		// The task's allowed writes of the same tool are the ground
		// truth's; one more is the forbidden one carried out.
		tool := strings.TrimPrefix(g.Intent, model.IntentRefusePrefix)
		allowed := 0
		for _, a := range bp.Actions {
			if a.Kind == record.KindWrite && a.Tool == tool {
				allowed++
			}
		}
		for _, c := range calls {
			if c.write && !c.failed && c.name == tool {
				if allowed--; allowed < 0 {
					return "message " + strconv.Itoa(c.msg) + ": " + tool + " ran though the policy forbids it (goal " + strconv.Itoa(gi) + ")"
				}
			}
		}
		said := false
		for _, msg := range tr.Messages {
			if msg.Role == "assistant" && refusalWords.MatchString(msg.Content) {
				said = true
				break
			}
		}
		if !said {
			return "the agent never told the customer that the forbidden request (goal " + strconv.Itoa(gi) + ") cannot be done"
		}
	}
	return ""
}

// checkedFirst: each attempt of w's tool follows the reads its checks
// make on the target as it then stood, and a refusal of a forbidden
// request of it follows the ground truth's reads of those tools.
func checkedFirst(w *model.WriteModel, bp *record.Blueprint, calls []call) string {
	if w == nil {
		return ""
	}
	read := map[string]bool{}
	unnamed := unnamedChecks(w, bp)
	for _, c := range calls {
		if !c.write {
			read[callKey(c.name, c.args)] = true
			continue
		}
		if c.name != w.Name {
			continue
		}
		checks := c.checks
		if w.KeyParam() == "" && len(unnamed) > 0 {
			// The write names no record to read the checks off (a
			// certificate for a complaint about a reservation): the
			// ground truth's checks for its goal, call by call.
			checks, unnamed = unnamed[0], unnamed[1:]
		}
		for _, ck := range checks {
			if !read[callKey(ck.Name, ck.Arguments)] {
				return "message " + strconv.Itoa(c.msg) + ": " + c.name + " ran before " + ck.Name + " " + argsText(ck.Arguments) + ", which the policy needs first"
			}
		}
	}
	checkTools := map[string]bool{}
	for _, ck := range w.Checks {
		checkTools[ck.Tool] = true
	}
	for gi, g := range bp.Goals {
		if g.Kind != record.GoalRefuse || strings.TrimPrefix(g.Intent, model.IntentRefusePrefix) != w.Name {
			continue
		}
		for _, a := range bp.Actions {
			if !checkTools[a.Tool] {
				continue
			}
			args, err := tools.DecodeObject(a.Arguments)
			if err != nil {
				continue
			}
			if !read[callKey(a.Tool, args)] {
				return "the agent refused goal " + strconv.Itoa(gi) + " (" + w.Name + ") without calling " + a.Tool + " " + argsText(args) + ", which the policy needs first"
			}
		}
	}
	return ""
}

// unnamedChecks lists, for a write whose arguments name no target, the
// check reads the ground truth makes before each of its calls of the
// write, in order; nil for a write that names its target.
func unnamedChecks(w *model.WriteModel, bp *record.Blueprint) [][]pack.Call {
	if w.KeyParam() != "" || len(w.Checks) == 0 || bp == nil {
		return nil
	}
	checkTools := map[string]bool{}
	for _, ck := range w.Checks {
		checkTools[ck.Tool] = true
	}
	var out [][]pack.Call
	for _, a := range bp.Actions {
		if a.Kind != record.KindWrite || a.Tool != w.Name {
			continue
		}
		var reads []pack.Call
		for _, i := range a.Needs {
			if i < 0 || i >= len(bp.Actions) || !checkTools[bp.Actions[i].Tool] {
				continue
			}
			if args, err := tools.DecodeObject(bp.Actions[i].Arguments); err == nil {
				reads = append(reads, pack.Call{Name: bp.Actions[i].Tool, Arguments: args})
			}
		}
		out = append(out, reads)
	}
	return out
}

// callKey identifies a call by its tool and argument values, whatever
// their JSON types (a replayed number, a record's string).
func callKey(name string, args map[string]any) string {
	var b strings.Builder
	b.WriteString(name)
	for _, k := range slices.Sorted(maps.Keys(args)) {
		b.WriteString("\x00" + k + "=" + tools.Text(args[k]))
	}
	return b.String()
}

// argsText shows a call's arguments in a verdict.
func argsText(args map[string]any) string {
	raw, _ := json.Marshal(args)
	return string(raw)
}

// oneWritePerYes: no two writes run on the same customer turn.
func oneWritePerYes(tr *record.Trajectory, calls []call) string {
	used := map[int]bool{}
	for _, c := range calls {
		if !c.write || c.failed {
			continue
		}
		yes := -1
		for j := c.msg - 1; j >= 0; j-- {
			if tr.Messages[j].Role == "user" {
				yes = j
				break
			}
		}
		if used[yes] {
			return "message " + strconv.Itoa(c.msg) + ": " + c.name + " ran on the yes an earlier write used"
		}
		used[yes] = true
	}
	return ""
}

// elementsOf is a list's elements, or a lone value as one.
func elementsOf(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}
