package dpo

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
	"github.com/synth-data/synth/verify"
)

// LabelChecker decides whether a pair's rejected side shows the mistake
// its label names. A label is a claim about the rows a model trains on:
// that the flawed agent failed for the right reason somewhere in its
// dialogue is not enough when the pair's cut leaves the mistake out (a
// wrong order proposed in one turn and cancelled after the customer's
// yes, in the next). Engines emit only pairs that pass it, and synth
// validate re-checks every row with it. Safe for concurrent use.
type LabelChecker struct {
	tools    *tools.Toolkit
	ver      *verify.Verifier
	m        *model.Model
	transfer string
}

// NewLabelChecker is the checker of a domain: its tools (kinds and
// schemas), its verifier (who counts as authenticated) and its transfer
// tool, if it has one.
func NewLabelChecker(d *domain.Domain, ver *verify.Verifier) *LabelChecker {
	c := &LabelChecker{tools: d.Tools, ver: ver, m: d.Model}
	if d.Model != nil && d.Model.Transfer != nil {
		c.transfer = d.Model.Transfer.Name
	}
	return c
}

// toolCall is one tool call of a pair, with where it stands.
type toolCall struct {
	msg  int // index in the messages it was found in
	name string
	raw  string
	args map[string]any
}

func callsOf(msgs []record.Message, from int) []toolCall {
	var out []toolCall
	for i := from; i < len(msgs); i++ {
		for _, c := range msgs[i].ToolCalls {
			var args map[string]any
			_ = json.Unmarshal([]byte(c.Function.Arguments), &args)
			out = append(out, toolCall{msg: i, name: c.Function.Name, raw: c.Function.Arguments, args: args})
		}
	}
	return out
}

// Shows reports whether the rejected continuation of a pair shows the
// behaviour its label names, and when it does not, why. The prompt and
// the chosen side are the context: the chosen side is the ground truth
// at that point, the blueprint's actions where the chosen side does not
// reach them.
//
//	guessed_target       a write none of the ground truth's, made on fewer reads than the chosen side makes before its own
//	wrong_target         a write whose target (its *_id argument) is none the ground truth's writes of that tool act on
//	wrong_argument       a write none of the ground truth's, on one of their targets
//	no_confirmation      a write without the customer's explicit yes to its proposal (the verifier's rule)
//	unauthenticated      a call on the customer's data before they were identified
//	hallucinated_id      an *_id argument that no tool result or customer message before the call held
//	wrong_tool           a write by another tool than the one the chosen side (or the ground truth) runs next
//	schema_invalid       a call whose arguments fail the tool's schema
//	stops_early          the agent's last words with no write or transfer, where the chosen side makes one
//	unnecessary_transfer a transfer the task does not need
//	omits_output         the agent's words without an output the chosen side tells
//
// A rejected side that stops at a proposal, with no write, shows
// guessed_target, wrong_target, wrong_argument, hallucinated_id,
// undisclosed, no_reminder, miscomputed and no_op_write in its words
// (proposalShows); the other labels need the call or transfer itself.
func (c *LabelChecker) Shows(ctx context.Context, bp *record.Blueprint, label string, prompt, chosen, rejected []record.Message) (bool, string) {
	p := &pair{ctx: ctx, bp: bp, prompt: prompt, chosen: chosen, rejected: rejected}
	p.hist = append(append([]record.Message(nil), prompt...), rejected...)
	p.rcalls, p.ccalls = callsOf(p.hist, len(prompt)), callsOf(chosen, 0)
	p.rw, p.cw = c.writes(p.rcalls), c.writes(p.ccalls)
	if len(p.rw) == 0 && proposalLabels[label] {
		return c.proposalShows(bp, label, prompt, chosen, rejected, p.cw)
	}
	if shows, ok := labelShows[label]; ok {
		return shows(c, p)
	}
	// The rule flaws: the rejected side breaks a policy rule of the
	// flaw's kind that the chosen side keeps.
	for _, kind := range []string{pack.RuleDisclose, pack.RuleSay, pack.RuleMessage, pack.RuleFromCustomer, pack.RuleChangesState, pack.RuleRequested, pack.RuleRefuse, pack.RuleChecked, pack.RuleComputed} {
		prefix := verify.RulePrefix + kind + ":"
		if !Explains(label, prefix) {
			continue
		}
		good := append(append([]record.Message(nil), prompt...), chosen...)
		if c.fails(ctx, bp, p.hist, prefix) && !c.fails(ctx, bp, good, prefix) {
			return true, ""
		}
		return false, "the rejected side keeps every " + kind + " rule the chosen side keeps"
	}
	return false, fmt.Sprintf("unknown failure type %q", label)
}

// pair is what Shows reads of a pair: its messages, the history up to
// the rejected side's end, and each side's calls and writes.
type pair struct {
	ctx                            context.Context
	bp                             *record.Blueprint
	prompt, chosen, rejected, hist []record.Message
	rcalls, ccalls, rw, cw         []toolCall
}

// writes are the calls of cs to write tools.
func (c *LabelChecker) writes(cs []toolCall) []toolCall {
	var out []toolCall
	for _, x := range cs {
		if c.tools.Kind(x.name) == record.KindWrite {
			out = append(out, x)
		}
	}
	return out
}

// labelShows holds, for each label that is not a rule's, what the
// rejected side must do to show it.
var labelShows = map[string]func(*LabelChecker, *pair) (bool, string){
	agent.FlawGuessedTarget: (*LabelChecker).guessedTarget,
	agent.FlawWrongTarget:   (*LabelChecker).wrongTarget,
	agent.FlawWrongArgument: (*LabelChecker).wrongArgument,
	agent.FlawNoConfirmation: func(c *LabelChecker, p *pair) (bool, string) {
		// The verifier's rule: a write needs the customer's explicit yes
		// to a proposal that named its details, one yes per write.
		if c.failsAfter(p, verify.CheckConfirmation) {
			return true, ""
		}
		return false, "every write of the rejected side follows the customer's explicit yes to its proposal"
	},
	agent.FlawUnauthenticated: func(c *LabelChecker, p *pair) (bool, string) {
		if c.failsAfter(p, verify.CheckAuth) {
			return true, ""
		}
		return false, "the rejected side calls no tool on the customer's data before they are identified"
	},
	agent.FlawHallucinatedID: func(_ *LabelChecker, p *pair) (bool, string) {
		for _, x := range p.rcalls {
			if _, id := verify.UnsaidID(p.hist[:x.msg], x.args); id != "" {
				return true, ""
			}
		}
		return false, "every id the rejected side uses was in a tool result or a customer message"
	},
	agent.FlawWrongTool: (*LabelChecker).wrongTool,
	agent.FlawSchemaInvalid: func(c *LabelChecker, p *pair) (bool, string) {
		for _, x := range p.rcalls {
			if t, _, err := c.tools.ParseArgs(x.name, x.raw); t != nil && err != nil {
				return true, ""
			}
		}
		return false, "every call of the rejected side matches its tool's schema"
	},
	agent.FlawStopsEarly:          (*LabelChecker).stopsEarly,
	agent.FlawUnnecessaryTransfer: (*LabelChecker).unnecessaryTransfer,
	agent.FlawOmitsOutput: func(_ *LabelChecker, p *pair) (bool, string) {
		if !endsWithWords(p.rejected) {
			return false, "the rejected side does not end with the agent's words"
		}
		for _, o := range p.bp.Outputs {
			if says(p.chosen, o.Value) && !says(p.rejected, o.Value) {
				return true, ""
			}
		}
		return false, "the rejected side tells every output the chosen side tells"
	},
}

// guessedTarget: the first write that is none of the ground truth's (a
// correct write of a later goal, made after the flawed one was refused,
// is not the guess) follows fewer reads than the chosen side makes.
func (c *LabelChecker) guessedTarget(p *pair) (bool, string) {
	for _, w := range p.rw {
		if anyEqual(c.reference(p.bp, p.cw, w.name), w.args) {
			continue
		}
		// Where the chosen side writes nothing yet, all its reads come
		// before the write it proposes.
		end := toolCall{msg: len(p.chosen)}
		if len(p.cw) > 0 {
			end = p.cw[0]
		}
		rReads, cReads := c.readsBefore(p.rcalls, w), c.readsBefore(p.ccalls, end)
		if rReads < cReads {
			return true, ""
		}
		return false, fmt.Sprintf("the rejected side's %s follows %d reads, the chosen side reads %d", w.name, rReads, cReads)
	}
	return false, "the rejected side runs no write other than the ground truth's"
}

func (c *LabelChecker) wrongTarget(p *pair) (bool, string) {
	for _, w := range p.rw {
		refs := c.reference(p.bp, p.cw, w.name)
		if len(refs) == 0 {
			continue
		}
		if key := targetKey(refs[0]); key != "" && !anyHas(refs, key, w.args[key]) {
			return true, ""
		}
	}
	return false, "no write of the rejected side acts on another target than the ground truth's"
}

func (c *LabelChecker) wrongArgument(p *pair) (bool, string) {
	for _, w := range p.rw {
		refs := c.reference(p.bp, p.cw, w.name)
		if anyEqual(refs, w.args) {
			continue
		}
		for _, ref := range refs {
			if key := targetKey(ref); key == "" || reflect.DeepEqual(w.args[key], ref[key]) {
				return true, ""
			}
		}
	}
	return false, "no write of the rejected side changes an argument of the ground truth's write on the same target"
}

func (c *LabelChecker) wrongTool(p *pair) (bool, string) {
	if len(p.rw) == 0 {
		return false, "the rejected side runs no write"
	}
	want := ""
	if len(p.cw) > 0 {
		want = p.cw[0].name
	} else if next := c.pendingGold(p.bp, p.prompt); len(next) > 0 {
		want = next[0].Tool
	}
	if p.rw[0].name != want {
		return true, ""
	}
	return false, fmt.Sprintf("the rejected side runs %s, as the ground truth does", want)
}

func (c *LabelChecker) stopsEarly(p *pair) (bool, string) {
	acts := func(cs []toolCall) bool {
		return slices.ContainsFunc(cs, func(x toolCall) bool {
			return c.tools.Kind(x.name) == record.KindWrite || x.name == c.transfer && x.name != ""
		})
	}
	switch {
	case acts(p.rcalls):
		return false, "the rejected side writes or transfers"
	case !acts(p.ccalls):
		return false, "the chosen side makes no write or transfer there either"
	case !endsWithWords(p.rejected):
		return false, "the rejected side does not end with the agent's words"
	}
	return true, ""
}

func (c *LabelChecker) unnecessaryTransfer(p *pair) (bool, string) {
	if p.bp.NeedsTransfer() {
		return false, "the task needs a transfer"
	}
	if c.transfer != "" && slices.ContainsFunc(p.rcalls, func(x toolCall) bool { return x.name == c.transfer }) {
		return true, ""
	}
	return false, "the rejected side makes no transfer"
}

// proposalLabels are the labels a proposal's words can show.
var proposalLabels = map[string]bool{agent.FlawGuessedTarget: true, agent.FlawWrongTarget: true, agent.FlawWrongArgument: true,
	agent.FlawHallucinatedID: true, agent.FlawUndisclosed: true, agent.FlawNoReminder: true, agent.FlawMiscomputed: true, agent.FlawNoOpWrite: true}

// readsBefore counts the read calls before the message of call x.
func (c *LabelChecker) readsBefore(cs []toolCall, x toolCall) int {
	n := 0
	for _, y := range cs {
		if y.msg >= x.msg {
			break
		}
		if c.tools.Kind(y.name) == record.KindRead {
			n++
		}
	}
	return n
}

// reference is what a write of tool may be: the chosen side's writes of
// that tool and the ground truth's (where the chosen side does not reach
// them, or they belong to another goal).
func (c *LabelChecker) reference(bp *record.Blueprint, chosen []toolCall, tool string) []map[string]any {
	var out []map[string]any
	for _, x := range chosen {
		if x.name == tool {
			out = append(out, x.args)
		}
	}
	for _, a := range bp.Actions {
		if a.Kind == record.KindWrite && a.Tool == tool {
			var args map[string]any
			_ = json.Unmarshal(a.Arguments, &args)
			out = append(out, args)
		}
	}
	return out
}

// pendingGold is the ground truth's writes not yet run successfully in
// the prompt, in order.
func (c *LabelChecker) pendingGold(bp *record.Blueprint, prompt []record.Message) []record.Action {
	failed := map[string]bool{}
	for _, m := range prompt {
		if m.Role == "tool" && strings.HasPrefix(m.Content, "Error") {
			failed[m.ToolCallID] = true
		}
	}
	done := 0
	for _, m := range prompt {
		for _, x := range m.ToolCalls {
			if c.tools.Kind(x.Function.Name) == record.KindWrite && !failed[x.ID] {
				done++
			}
		}
	}
	var gold []record.Action
	for _, a := range bp.Actions {
		if a.Kind == record.KindWrite {
			gold = append(gold, a)
		}
	}
	if done >= len(gold) {
		return nil
	}
	return gold[done:]
}

func anyEqual(refs []map[string]any, args map[string]any) bool {
	return slices.ContainsFunc(refs, func(r map[string]any) bool { return reflect.DeepEqual(r, args) })
}

func anyHas(refs []map[string]any, key string, v any) bool {
	return slices.ContainsFunc(refs, func(r map[string]any) bool { return reflect.DeepEqual(r[key], v) })
}

// fails reports whether a check of the verifier whose name is check, or
// starts with it (rule:KIND:), fails on msgs: authentication (a call
// touched the customer's data before they were identified, or another
// customer's), confirmation (a write without its own yes), a policy rule
// of a kind.
func (c *LabelChecker) fails(ctx context.Context, bp *record.Blueprint, msgs []record.Message, check string) bool {
	v := c.ver.Verify(ctx, bp, &record.Trajectory{BlueprintID: bp.ID, Domain: bp.Domain, Messages: msgs})
	return slices.ContainsFunc(v.Checks, func(ch record.Check) bool { return strings.HasPrefix(ch.Name, check) && !ch.Passed })
}

// failsAfter reports whether check fails once the rejected side is
// played and not on the prompt alone: the mistake is the rejected
// side's, not the shared history's.
func (c *LabelChecker) failsAfter(p *pair, check string) bool {
	return c.fails(p.ctx, p.bp, p.hist, check) && !c.fails(p.ctx, p.bp, p.prompt, check)
}

// endsWithWords reports whether a side ends with the agent's words (a
// message with text and no tool calls): the answer the customer reads.
func endsWithWords(side []record.Message) bool {
	if len(side) == 0 {
		return false
	}
	last := side[len(side)-1]
	return last.Role == "assistant" && last.Content != "" && len(last.ToolCalls) == 0
}

// says reports whether the agent's words on a side tell value, compared
// as the outputs check does (case and commas aside).
func says(side []record.Message, value string) bool {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), ",", "") }
	want := norm(value)
	return slices.ContainsFunc(side, func(m record.Message) bool { return m.Role == "assistant" && strings.Contains(norm(m.Content), want) })
}
