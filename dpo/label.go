package dpo

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

// FailureLabel maps a failed LLM dialogue to the failure taxonomy of the
// flawed agents (agent.Flaws), from the first check it failed, so that
// pairs mean the same whichever engine made them. Every label returned
// lists the failed check among its Expected checks.
//
//	tool_schema    → schema_invalid
//	authentication → unauthenticated
//	confirmation   → no_confirmation
//	outputs        → unnecessary_transfer after a transfer the task did not need, else omits_output
//	ending         → unnecessary_transfer after a transfer the task did not need, else stops_early
//	state          → the first difference between the agent's successful writes and the ground truth's:
//	                 a transfer the task did not need → unnecessary_transfer; fewer writes → stops_early;
//	                 another tool → wrong_tool; an id no tool result or customer message held → hallucinated_id;
//	                 another target (an *_id argument, payment methods aside) → wrong_target; else wrong_argument
//	rule:disclose, rule:say, rule:message → undisclosed, no_reminder, no_transfer_message
//	rule:from_customer, rule:changes_state → assumed_argument, no_op_write
//	rule:requested, rule:one_write_per_yes → unrequested_write; rule:refuse → silent_refusal
//	record_schema, tool_call_ids, turns, other rules → "" (no agent decision of the taxonomy: not paired)
func FailureLabel(bp *record.Blueprint, tr *record.Trajectory, v record.Verdict, kind func(string) string) string {
	f := v.Failed()
	if f == nil {
		return ""
	}
	switch f.Name {
	case verify.CheckToolSchema:
		return agent.FlawSchemaInvalid
	case verify.CheckAuth:
		return agent.FlawUnauthenticated
	case verify.CheckConfirmation:
		return agent.FlawNoConfirmation
	case verify.CheckOutputs:
		if needlessTransfer(bp, tr) {
			return agent.FlawUnnecessaryTransfer
		}
		return agent.FlawOmitsOutput
	case verify.CheckEnding:
		if needlessTransfer(bp, tr) {
			return agent.FlawUnnecessaryTransfer
		}
		return agent.FlawStopsEarly
	case verify.CheckState:
		return stateLabel(bp, tr, kind)
	}
	// A policy rule: the flaw of its kind, where the taxonomy has one.
	for flaw := range expected {
		if strings.HasPrefix(f.Name, verify.RulePrefix) && Explains(flaw, f.Name) {
			return flaw
		}
	}
	return ""
}

func needlessTransfer(bp *record.Blueprint, tr *record.Trajectory) bool {
	return tr.Ending == record.EndTransfer && !bp.NeedsTransfer()
}

// write is one successful write call of a dialogue, with what the agent
// could have known when it made it.
type write struct {
	tool string
	args map[string]any
	seen string // tool results and customer messages before the call
}

func stateLabel(bp *record.Blueprint, tr *record.Trajectory, kind func(string) string) string {
	if needlessTransfer(bp, tr) {
		return agent.FlawUnnecessaryTransfer
	}
	results := map[string]string{}
	for _, m := range tr.Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Content
		}
	}
	var writes []write
	var seen strings.Builder
	for _, m := range tr.Messages {
		switch m.Role {
		case "user", "tool":
			seen.WriteString(m.Content + "\n")
		case "assistant":
			for _, c := range m.ToolCalls {
				if kind(c.Function.Name) != record.KindWrite || strings.HasPrefix(results[c.ID], "Error") {
					continue
				}
				var args map[string]any
				_ = json.Unmarshal([]byte(c.Function.Arguments), &args)
				writes = append(writes, write{tool: c.Function.Name, args: args, seen: seen.String()})
			}
		}
	}
	var gold []write
	for _, a := range bp.Actions {
		if a.Kind == record.KindWrite {
			var args map[string]any
			_ = json.Unmarshal(a.Arguments, &args)
			gold = append(gold, write{tool: a.Tool, args: args})
		}
	}
	for i, g := range gold {
		if i >= len(writes) {
			return agent.FlawStopsEarly
		}
		w := writes[i]
		if w.tool != g.tool {
			return agent.FlawWrongTool
		}
		if reflect.DeepEqual(w.args, g.args) {
			continue
		}
		for k, v := range w.args {
			if s, ok := v.(string); ok && strings.HasSuffix(k, "_id") && !strings.Contains(w.seen, s) {
				return agent.FlawHallucinatedID
			}
		}
		if k := targetKey(g.args); k != "" && !reflect.DeepEqual(w.args[k], g.args[k]) {
			return agent.FlawWrongTarget
		}
		return agent.FlawWrongArgument
	}
	return agent.FlawWrongArgument
}

// targetKey is the argument naming what a write acts on: a string *_id
// argument that is not a payment method (the first by name, so the
// choice is stable).
func targetKey(args map[string]any) string {
	best := ""
	for k, v := range args {
		if _, ok := v.(string); !ok || !strings.HasSuffix(k, "_id") || strings.Contains(k, "payment") {
			continue
		}
		if best == "" || k < best {
			best = k
		}
	}
	return best
}
