package tau2

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// toolDef is one τ² tool: its parameters in signature order and its body.
type toolDef struct {
	name   string
	params []string
	run    func(c *call) (any, error)
}

// call is one tool call: the episode's state and the arguments.
type call struct {
	ctx  context.Context
	st   *tools.State
	args map[string]any
}

// handlerSet turns tool definitions into a pack.HandlerSet. class is the
// Python class name τ²'s TypeError messages carry.
func handlerSet(class string, defs []toolDef) pack.HandlerSet {
	set := make(pack.HandlerSet, len(defs))
	for _, d := range defs {
		set[d.name] = func(ctx context.Context, st *tools.State, args map[string]any) (any, error) {
			if err := bindArgs(class, d.name, d.params, args); err != nil {
				return nil, err
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return d.run(&call{ctx: ctx, st: st, args: args})
		}
	}
	return set
}

// bindArgs fails as Python's call of the bound method would: first an
// argument the signature lacks, then the ones it requires and did not get.
// A Go map has lost the order of the arguments, so of several unknown
// names the first in sorted order is named (Python names the first sent).
func bindArgs(class, tool string, params []string, args map[string]any) error {
	var unknown string
	for k := range args {
		if !slices.Contains(params, k) && (unknown == "" || k < unknown) {
			unknown = k
		}
	}
	if unknown != "" {
		return fmt.Errorf("%s.%s() got an unexpected keyword argument '%s'", class, tool, unknown)
	}
	var missing []string
	for _, p := range params {
		if _, ok := args[p]; !ok {
			missing = append(missing, "'"+p+"'")
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s.%s() missing 1 required positional argument: %s", class, tool, missing[0])
	case 2:
		return fmt.Errorf("%s.%s() missing 2 required positional arguments: %s and %s", class, tool, missing[0], missing[1])
	}
	return fmt.Errorf("%s.%s() missing %d required positional arguments: %s, and %s", class, tool, len(missing), strings.Join(missing[:len(missing)-1], ", "), missing[len(missing)-1])
}

// errArgType is an argument of the wrong JSON type. The tool's JSON
// Schema rules these out before a handler runs; a caller that skips the
// schema gets this instead of Python's duck typing.
func errArgType(name, want string) error {
	return fmt.Errorf("argument %s must be %s (see the tool's JSON Schema)", name, want)
}

func (c *call) str(name string) (string, error) {
	s, ok := c.args[name].(string)
	if !ok {
		return "", errArgType(name, "a string")
	}
	return s, nil
}

func (c *call) strList(name string) ([]string, error) {
	l, ok := c.args[name].([]any)
	if !ok {
		return nil, errArgType(name, "an array of strings")
	}
	out := make([]string, len(l))
	for i, e := range l {
		if out[i], ok = e.(string); !ok {
			return nil, errArgType(name, "an array of strings")
		}
	}
	return out, nil
}

func (c *call) number(name string) (pyNumber, error) {
	n, ok := numberArg(c.args[name])
	if !ok {
		return pyNumber{}, errArgType(name, "an integer")
	}
	return n, nil
}

func (c *call) objList(name string) ([]map[string]any, error) {
	l, ok := c.args[name].([]any)
	if !ok {
		return nil, errArgType(name, "an array of objects")
	}
	out := make([]map[string]any, len(l))
	for i, e := range l {
		if out[i], ok = e.(map[string]any); !ok {
			return nil, errArgType(name, "an array of objects")
		}
	}
	return out, nil
}

// get reads a record as an object view; absent is (view{}, false, nil).
func (c *call) get(coll, key string) (view, bool, error) {
	v, ok := c.st.Get(coll, key)
	if !ok {
		return view{}, false, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return view{}, true, errShape(coll, key, "(record)", "an object")
	}
	return recView(coll, key, m), true, nil
}

func (c *call) put(coll, key string, rec map[string]any) error {
	if err := c.st.Put(coll, key, rec); err != nil {
		return fmt.Errorf("store %s[%q]: %w", coll, key, err)
	}
	return nil
}

// keyOrder is the keys of a collection in db.json order (the records of
// OrderCollection), or sorted when the pack does not carry the order.
func keyOrder(st *tools.State, coll string) []string {
	if l, ok := orderKeys(st, coll); ok {
		out := make([]string, 0, len(l))
		for _, e := range l {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return st.Keys(coll)
}

// plainError is an error whose text is exactly τ²'s message.
func plainError(msg string) error { return errors.New(msg) }

// keyErr is Python's KeyError text for a missing dict key: the key's repr.
func keyErr(key string) error { return errors.New(pyStr(key)) }

// orderKeys is the "keys" list of a collection's OrderCollection record.
func orderKeys(st *tools.State, coll string) ([]any, bool) {
	v, ok := st.Get(OrderCollection, coll)
	if !ok {
		return nil, false
	}
	m, _ := v.(map[string]any)
	l, ok := m["keys"].([]any)
	return l, ok
}

// HandlerSets are the handler sets this package builds into synth, by the
// names packs give them as handlers: builtin:NAME.
func HandlerSets() map[string]pack.HandlerSet {
	return map[string]pack.HandlerSet{"tau2-retail": RetailHandlers(), "tau2-airline": AirlineHandlers()}
}
