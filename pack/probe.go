package pack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/synth-data/synth/tools"
)

// Probe calls every handler of a loaded pack once, on a fresh state of
// the pack's own database, under the sandbox's bounds (Limits, and the
// memory bound of the process that runs it): a handler that runs past the
// step limit, returns too much or something that is not JSON, or crashes,
// does so whatever the dialogue, and is reported before a run meets it.
// Each call's arguments are made from the tool's schema and the data: a
// collection's key field gets a key of that collection, a field the
// records hold gets a record's value, anything else the first value its
// schema allows. An error those arguments explain (fail(), a missing
// record) is the handler's answer, not a problem.
func Probe(ctx context.Context, p *Pack) Problems {
	file := p.Manifest.Handlers
	var out Problems
	report := func(name string, args map[string]any, err error) {
		if _, ok := errors.AsType[boundError](err); !ok {
			return
		}
		raw, _ := json.Marshal(args)
		out = append(out, Problem{File: file, Field: name,
			Message: fmt.Sprintf("called once with %s on the pack's own data: %v", boundText(string(raw)), err)})
	}
	for _, t := range p.Tools.Tools() {
		if ctx.Err() != nil {
			return out
		}
		args := probeArgs(p, t.Parameters)
		report(t.Name, args, probeCall(ctx, t.Handler, p.Base.NewState(), roundTrip(p.Tools, t.Name, args)))
	}
	for _, name := range slices.Sorted(maps.Keys(p.Computes)) {
		if ctx.Err() != nil {
			return out
		}
		report(name, map[string]any{}, probeCall(ctx, p.Computes[name], p.Base.NewState(), map[string]any{}))
	}
	return out
}

// probeCall runs one handler: a built-in (Go) one has no sandbox to catch its
// panic, so a panic is caught here and reported as the sandbox would.
func probeCall(ctx context.Context, h tools.Handler, st *tools.State, args map[string]any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = boundError{fmt.Errorf("crashed: %v", p)}
		}
	}()
	_, err = h(ctx, st, args)
	return err
}

// roundTrip gives args as a run's handler gets them: decoded from JSON
// by the tool's schema (numbers as json.Number), or, when they do not
// match it, decoded plainly.
func roundTrip(kit *tools.Toolkit, name string, args map[string]any) map[string]any {
	raw, err := json.Marshal(args)
	if err != nil {
		return args
	}
	if _, m, err := kit.ParseArgs(name, string(raw)); err == nil {
		return m
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return args
	}
	return m
}

// probeArgs makes arguments for a tool from its schema and the data.
func probeArgs(p *Pack, params map[string]any) map[string]any {
	props, _ := params["properties"].(map[string]any)
	required, _ := params["required"].([]any)
	args := map[string]any{}
	for _, r := range required {
		name, ok := r.(string)
		if !ok {
			continue
		}
		schema, _ := props[name].(map[string]any)
		args[name] = probeValue(p, name, schema)
	}
	return args
}

// probeValue is a value for the argument name: a key of the collection it
// names, a record's field of that name, or the first its schema allows.
func probeValue(p *Pack, name string, schema map[string]any) any {
	for _, coll := range slices.Sorted(maps.Keys(p.Manifest.Collections)) {
		if p.Manifest.Collections[coll].Key != name {
			continue
		}
		if keys := p.Base.Keys(coll); len(keys) > 0 {
			if rec, ok := p.Base.Get(coll, keys[0]); ok {
				if obj, ok := rec.(map[string]any); ok && obj[name] != nil {
					return obj[name]
				}
			}
			return keys[0]
		}
	}
	for _, coll := range p.Base.Collections() {
		keys := p.Base.Keys(coll)
		if len(keys) == 0 {
			continue
		}
		if rec, ok := p.Base.Get(coll, keys[0]); ok {
			if obj, ok := rec.(map[string]any); ok && obj[name] != nil {
				return obj[name]
			}
		}
	}
	return schemaValue(schema)
}

// schemaValue is the first value a schema allows, as far as its enum,
// const and type say.
func schemaValue(schema map[string]any) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	if c, ok := schema["const"]; ok {
		return c
	}
	typ := schema["type"]
	if list, ok := typ.([]any); ok && len(list) > 0 {
		typ = list[0]
	}
	switch typ {
	case "integer", "number":
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	case "null":
		return nil
	}
	return "x"
}
