package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/synth-data/synth/record"
)

// Handler runs one tool. It reads and writes st, and returns a
// JSON-marshalable result or an error that the agent sees as an observation.
type Handler func(ctx context.Context, st *State, args map[string]any) (any, error)

// Tool is one function the agent can call.
type Tool struct {
	Name        string
	Description string
	Kind        string // record.KindRead, KindWrite or KindGeneric
	// Parameters is the JSON Schema of the arguments object.
	Parameters map[string]any
	Handler    Handler

	schema *jsonschema.Schema
}

// Toolkit is a domain's compiled tool set. Safe for concurrent use.
type Toolkit struct {
	list   []*Tool
	byName map[string]*Tool
	spec   string
	defs   []string // each tool's OpenAI definition, in definition order
	parsed *argCache
}

// NewToolkit compiles every tool's parameter schema (Draft 2020-12).
func NewToolkit(list []*Tool) (*Toolkit, error) {
	k := &Toolkit{list: list, byName: make(map[string]*Tool, len(list)), parsed: newArgCache()}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for _, t := range list {
		if t.Name == "" {
			return nil, errors.New("tool with an empty name")
		}
		if _, dup := k.byName[t.Name]; dup {
			return nil, fmt.Errorf("tool %q is defined twice", t.Name)
		}
		switch t.Kind {
		case record.KindRead, record.KindWrite, record.KindGeneric:
		default:
			return nil, fmt.Errorf("tool %q: kind %q is not read, write or generic", t.Name, t.Kind)
		}
		if t.Handler == nil {
			return nil, fmt.Errorf("tool %q has no handler", t.Name)
		}
		// Round-trip through the library's decoder so numbers are json.Number, as it expects.
		raw, err := json.Marshal(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		url := "tool:///" + t.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		s, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("tool %q: parameters are not a valid JSON Schema: %w", t.Name, err)
		}
		t.schema = s
		k.byName[t.Name] = t
		def, err := json.Marshal(map[string]any{
			"type": "function",
			"function": map[string]any{
				"name":        t.Name,
				"description": t.Description,
				"parameters":  t.Parameters,
			},
		})
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		k.defs = append(k.defs, string(def))
	}
	k.spec = "[" + strings.Join(k.defs, ",") + "]"
	return k, nil
}

// Tools returns the tools in definition order.
func (k *Toolkit) Tools() []*Tool { return k.list }

// Tool looks a tool up by name.
func (k *Toolkit) Tool(name string) (*Tool, bool) {
	t, ok := k.byName[name]
	return t, ok
}

// Kind returns a tool's kind, or "" for an unknown tool.
func (k *Toolkit) Kind(name string) string {
	if t, ok := k.byName[name]; ok {
		return t.Kind
	}
	return ""
}

// OpenAI returns the tools array in the OpenAI function-calling format, as JSON text.
func (k *Toolkit) OpenAI() string { return k.spec }

// OpenAIOf is OpenAI for the tools in names, kept in definition order so
// that a tool's place in the list says nothing of why it is there; names
// that are not tools are left out.
func (k *Toolkit) OpenAIOf(names map[string]bool) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, t := range k.list {
		if !names[t.Name] {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(k.defs[i])
	}
	b.WriteByte(']')
	return b.String()
}

// ParseArgs decodes and validates a call's JSON arguments against the tool's schema.
func (k *Toolkit) ParseArgs(name, args string) (*Tool, map[string]any, error) {
	t, ok := k.byName[name]
	if !ok {
		return nil, nil, fmt.Errorf("unknown tool %q", name)
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	key := name + "\x00" + args
	if m, ok := k.parsed.get(key); ok {
		return t, m, nil
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		return t, nil, fmt.Errorf("arguments of %s are not valid JSON: %v", name, err)
	}
	if err := t.schema.Validate(v); err != nil {
		return t, nil, fmt.Errorf("arguments of %s do not match its schema: %s", name, plainSchemaError(err))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return t, nil, fmt.Errorf("arguments of %s must be a JSON object", name)
	}
	k.parsed.put(key, m)
	return t, m, nil
}

// Result is what a tool call returns to the agent.
type Result struct {
	Output string // the observation text
	Err    bool   // the call failed (validation or handler error)
	Kind   string // the tool's kind, "" when unknown
	Value  any    // the handler's result, for callers that want it decoded
}

// Call validates the arguments and runs the tool. Every failure becomes an
// observation starting with "Error: ", as a real tool server would answer.
func (k *Toolkit) Call(ctx context.Context, st *State, name, args string) Result {
	res := k.Exec(ctx, st, name, args)
	if res.Err {
		return res
	}
	return k.render(st, res)
}

// Exec is Call without rendering the observation of a success: for
// callers that want only the handler's value (the generator building a
// task, a replay comparing states), Output is empty unless the call
// failed. Render gives the text Call would.
func (k *Toolkit) Exec(ctx context.Context, st *State, name, args string) Result {
	t, m, err := k.ParseArgs(name, args)
	if err != nil {
		kind := ""
		if t != nil {
			kind = t.Kind
		}
		return Result{Output: "Error: " + err.Error(), Err: true, Kind: kind}
	}
	if st.faulty(name) {
		// A failure happens to a call that would go through: one its
		// handler refuses (an order that does not exist) answers with
		// its own error and is not counted.
		if _, err := t.Handler(ctx, st.Fork(), m); err != nil {
			return Result{Output: "Error: " + err.Error(), Err: true, Kind: t.Kind}
		}
		if out, ok := st.fault(name); ok {
			return Result{Output: "Error: " + out, Err: true, Kind: t.Kind}
		}
	}
	v, err := t.Handler(ctx, st, m)
	if err != nil {
		return Result{Output: "Error: " + err.Error(), Err: true, Kind: t.Kind}
	}
	return Result{Kind: t.Kind, Value: v}
}

// render fills in the observation of a successful Exec.
func (k *Toolkit) render(st *State, res Result) Result {
	v := res.Value
	var out string
	var err error
	if raw, ok := st.base.Rendered(v); ok {
		out = string(raw)
	} else if out, err = Render(v); err != nil {
		return Result{Output: "Error: " + err.Error(), Err: true, Kind: res.Kind}
	}
	res.Output = out
	return res
}

// Observe renders an Exec result's observation as Call would.
func (k *Toolkit) Observe(st *State, res Result) Result {
	if res.Err || res.Output != "" {
		return res
	}
	return k.render(st, res)
}

// Render turns a handler result into observation text: strings as they
// are, everything else as JSON.
func Render(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	var stack [4 << 10]byte
	if b, ok := AppendJSON(stack[:0], v); ok {
		return string(b), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("tool result is not JSON: %w", err)
	}
	return string(b), nil
}
