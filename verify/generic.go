package verify

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/synth-data/synth/record"
)

// Records are converted to the generic values the schema library
// validates by hand: the JSON round trip this replaces cost more than the
// validation itself. The shapes mirror the records' JSON tags exactly
// (omitempty fields are left out when empty); TestGenericMatchesJSON
// keeps the two in step.

func trajectoryValue(tr *record.Trajectory) map[string]any {
	msgs := make([]any, len(tr.Messages))
	for i, m := range tr.Messages {
		msgs[i] = messageValue(m)
	}
	return map[string]any{
		"id": tr.ID, "blueprint_id": tr.BlueprintID, "domain": tr.Domain, "engine": tr.Engine,
		"behavior": tr.Behavior, "messages": msgs, "ending": tr.Ending, "state_hash": tr.StateHash,
	}
}

func messageValue(m record.Message) map[string]any {
	v := map[string]any{"role": m.Role, "content": m.Content}
	if m.ReasoningContent != "" {
		v["reasoning_content"] = m.ReasoningContent
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]any, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			calls[i] = map[string]any{"id": c.ID, "type": c.Type,
				"function": map[string]any{"name": c.Function.Name, "arguments": c.Function.Arguments}}
		}
		v["tool_calls"] = calls
	}
	if m.ToolCallID != "" {
		v["tool_call_id"] = m.ToolCallID
	}
	if m.Name != "" {
		v["name"] = m.Name
	}
	return v
}

func stringMap(m map[string]string) any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func selectorValue(s record.Selector) map[string]any {
	v := map[string]any{"collection": s.Collection, "label": s.Label}
	if s.ID != "" {
		v["id"] = s.ID
	}
	if len(s.Where) > 0 {
		v["where"] = stringMap(s.Where)
	}
	if s.Pick != "" {
		v["pick"] = s.Pick
	}
	if len(s.Among) > 0 {
		among := make(map[string]any, len(s.Among))
		for k, vals := range s.Among {
			among[k] = stringList(vals)
		}
		v["among"] = among
	}
	if len(s.Back) > 0 {
		back := make(map[string]any, len(s.Back))
		for k, vals := range s.Back {
			back[k] = stringList(vals)
		}
		v["back"] = back
	}
	return v
}

func selectors(list []record.Selector) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = selectorValue(s)
	}
	return out
}

func ints(list []int) []any {
	out := make([]any, len(list))
	for i, x := range list {
		out[i] = json.Number(strconv.Itoa(x))
	}
	return out
}

func stringList(list []string) any {
	if list == nil {
		return nil
	}
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

func blueprintValue(bp *record.Blueprint) (map[string]any, error) {
	goals := make([]any, len(bp.Goals))
	for i, g := range bp.Goals {
		v := map[string]any{"intent": g.Intent, "kind": g.Kind, "target": selectorValue(g.Target)}
		if len(g.Items) > 0 {
			v["items"] = selectors(g.Items)
		}
		if len(g.New) > 0 {
			v["new"] = selectors(g.New)
		}
		if len(g.Slots) > 0 {
			v["slots"] = stringMap(g.Slots)
		}
		if len(g.Revised) > 0 {
			v["revised"] = stringMap(g.Revised)
		}
		if len(g.RevisedItems) > 0 {
			v["revised_items"] = selectors(g.RevisedItems)
		}
		if len(g.FailingItems) > 0 {
			v["failing_items"] = selectors(g.FailingItems)
		}
		if len(g.FailingSlots) > 0 {
			v["failing_slots"] = stringMap(g.FailingSlots)
		}
		if len(g.UnavailableNew) > 0 {
			v["unavailable_new"] = selectors(g.UnavailableNew)
		}
		goals[i] = v
	}
	actions := make([]any, len(bp.Actions))
	for i, a := range bp.Actions {
		args, err := jsonschema.UnmarshalJSON(bytes.NewReader(a.Arguments))
		if err != nil {
			return nil, err
		}
		v := map[string]any{"tool": a.Tool, "kind": a.Kind, "arguments": args, "goal": json.Number(strconv.Itoa(a.Goal))}
		if len(a.Needs) > 0 {
			v["needs"] = ints(a.Needs)
		}
		actions[i] = v
	}
	var outs any
	if bp.Outputs != nil {
		list := make([]any, len(bp.Outputs))
		for i, o := range bp.Outputs {
			list[i] = map[string]any{"goal": json.Number(strconv.Itoa(o.Goal)), "name": o.Name, "value": o.Value}
		}
		outs = list
	}
	persona := map[string]any{"name": bp.Persona.Name, "known": stringMap(bp.Persona.Known)}
	if len(bp.Persona.Traits) > 0 {
		persona["traits"] = stringList(bp.Persona.Traits)
	}
	var ev any
	if bp.Evidence != nil {
		ev = ints(bp.Evidence)
	}
	var gv, av any = goals, actions
	if bp.Goals == nil {
		gv = nil
	}
	if bp.Actions == nil {
		av = nil
	}
	return map[string]any{
		"id": bp.ID, "index": json.Number(strconv.Itoa(bp.Index)), "domain": bp.Domain,
		"seed": json.Number(strconv.FormatUint(bp.Seed, 10)), "split": bp.Split, "persona": persona, "reason": bp.Reason,
		"unknown": stringList(bp.Unknown), "behavior": bp.Behavior, "goals": gv, "actions": av,
		"outputs": outs, "n_writes": json.Number(strconv.Itoa(bp.NWrites)), "n_reads": json.Number(strconv.Itoa(bp.NReads)),
		"evidence": ev, "instruction": bp.Instruction, "state_hash": bp.StateHash,
	}, nil
}
