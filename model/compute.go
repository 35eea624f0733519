package model

import (
	"context"
	"sync"

	"github.com/synth-data/synth/tools"
)

// A computed argument is asked for again and again with the same
// arguments on states that differ only in records the function never
// reads: the generator tries a write on a target, then builds it; the
// agent and the verifier compute it again. Each call runs the pack's
// Starlark function, which converts every record it reads (a flight
// with all its dates), so a model keeps the recent answers with what
// they read, as Read does, and reuses one on a state that holds those
// records as the base does.

// computeMemoSize is the entries of each of a memo's two generations:
// a few hundred dialogues' worth.
const computeMemoSize = 4096

type computed struct {
	v     any
	err   error
	trace *tools.Trace
}

type computeMemo struct {
	mu       sync.Mutex
	cur, old map[string]computed
}

// memoized wraps each function so that its answers are kept.
func memoized(fns map[string]tools.Handler) map[string]tools.Handler {
	out := make(map[string]tools.Handler, len(fns))
	for name, fn := range fns {
		out[name] = (&computeMemo{cur: map[string]computed{}}).wrap(fn)
	}
	return out
}

func (c *computeMemo) wrap(fn tools.Handler) tools.Handler {
	return func(ctx context.Context, st *tools.State, args map[string]any) (any, error) {
		raw, err := tools.Marshal(args)
		if err != nil {
			return fn(ctx, st, args)
		}
		key := string(raw)
		if e, ok := c.get(key); ok && st.Holds(e.trace) {
			// Callers may change what they get, as a fresh call's value.
			return tools.CopyJSON(e.v), e.err
		}
		var v any
		tr := st.Traced(func() { v, err = fn(ctx, st, args) })
		if ctx.Err() == nil && tr.Reusable() && st.Holds(tr) {
			c.put(key, computed{tools.CopyJSON(v), err, tr})
		}
		return v, err
	}
}

func (c *computeMemo) get(key string) (computed, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.cur[key]
	if !ok {
		if e, ok = c.old[key]; ok {
			c.cur[key] = e
		}
	}
	return e, ok
}

func (c *computeMemo) put(key string, e computed) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cur[key] = e
	if len(c.cur) >= computeMemoSize {
		c.old, c.cur = c.cur, make(map[string]computed, computeMemoSize)
	}
}
