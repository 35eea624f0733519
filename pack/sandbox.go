package pack

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	starjson "go.starlark.net/lib/json"
	starmath "go.starlark.net/lib/math"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/tools"
)

// Limits bound what a pack's Starlark code may do. Starlark has no memory
// limit, so sizes crossing the sandbox boundary are capped instead.
type Limits struct {
	// Steps is the most Starlark execution steps one handler call may take.
	Steps uint64
	// GeneratorSteps bounds generate(seed) and each file's top level.
	GeneratorSteps uint64
	// ArgBytes caps a call's arguments (approximate JSON size).
	ArgBytes int
	// ResultBytes caps a handler's result and each record it writes.
	ResultBytes int
	// DatabaseBytes caps db.json, the generator's database and what one
	// call may read from the database.
	DatabaseBytes int
}

// DefaultLimits are the limits Load uses.
func DefaultLimits() Limits {
	return Limits{
		Steps:          1_000_000,
		GeneratorSteps: 200_000_000,
		ArgBytes:       64 << 10,
		ResultBytes:    1 << 20,
		DatabaseBytes:  256 << 20,
	}
}

// fileOptions are the Starlark dialect of packs: while loops and sets are
// allowed (the step limit bounds loops); recursion is not.
var fileOptions = &syntax.FileOptions{Set: true, While: true, TopLevelControl: true}

// boundError is a handler call the sandbox stopped or refused whatever
// its arguments: past the step limit, a result too large or not JSON, a
// crash. domain validate reports these (Probe); an error the arguments
// explain is the handler's answer.
type boundError struct{ error }

func (e boundError) Unwrap() error { return e.error }

// failError is what fail() raises: a business error whose message the
// agent sees as it is.
type failError struct{ msg string }

func (e *failError) Error() string { return e.msg }

func failBuiltin(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	sep := " "
	if err := starlark.UnpackArgs("fail", nil, kwargs, "sep?", &sep); err != nil {
		return nil, err
	}
	parts := make([]string, len(args))
	for i, a := range args {
		if s, ok := starlark.AsString(a); ok {
			parts[i] = s
		} else {
			parts[i] = a.String()
		}
	}
	msg := strings.Join(parts, sep)
	msg = cmp.Or(msg, "failed")
	// The agent sees the message as a tool's answer, and a row must be
	// UTF-8: a message of megabytes or of stray bytes is cut and mended.
	return nil, &failError{msg: boundText(msg)}
}

// maxMessageBytes bounds a message a pack's code makes (fail(), an
// evaluation error quoting a value): a business error is a sentence.
const maxMessageBytes = 8 << 10

// boundText is a message of a pack's code as synth passes it on: at most
// maxMessageBytes, valid UTF-8.
func boundText(s string) string {
	return strings.ToValidUTF8(limitio.Clip(s, maxMessageBytes), "\uFFFD")
}

func noStop() bool { return false }

func discardPrint(*starlark.Thread, string) {}

// environment returns the predeclared names of handlers and generators.
// Nothing in it reaches files, the network or the clock.
func environment(clock string, generator bool) starlark.StringDict {
	env := starlark.StringDict{
		"json": starjson.Module,
		"math": starmath.Module,
		"NOW":  starlark.String(clock),
		"fail": starlark.NewBuiltin("fail", failBuiltin),
	}
	if generator {
		env["random"] = starlark.NewBuiltin("random", randomBuiltin)
	}
	return env
}

// newThread makes the thread of one call: a step limit, no print, no
// load(), and cancellation when ctx ends. Call the returned stop when done.
func newThread(ctx context.Context, name string, steps uint64) (*starlark.Thread, func() bool) {
	th := &starlark.Thread{Name: name, Print: discardPrint}
	th.SetMaxExecutionSteps(steps)
	if ctx.Done() == nil {
		return th, noStop // the context can never end
	}
	stop := context.AfterFunc(ctx, func() { th.Cancel(context.Cause(ctx).Error()) })
	return th, stop
}

// callError classifies a failed Starlark call into the message the agent
// (or the pack author) sees.
func callError(ctx context.Context, th *starlark.Thread, what string, steps uint64, err error) error {
	var fe *failError
	if errors.As(err, &fe) {
		return fe
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s was cancelled: %w", what, context.Cause(ctx))
	}
	if th.ExecutionSteps() >= steps {
		return boundError{fmt.Errorf("%s ran past its step limit of %d steps", what, steps)}
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		if pos, ok := sourcePos(ee.CallStack); ok {
			return fmt.Errorf("%s failed at %s: %s", what, pos, boundText(ee.Msg))
		}
		return fmt.Errorf("%s failed: %s", what, boundText(ee.Msg))
	}
	if msg := err.Error(); boundText(msg) != msg {
		return fmt.Errorf("%s failed: %s", what, boundText(msg))
	}
	return fmt.Errorf("%s failed: %w", what, err)
}

// sourcePos is the innermost position in Starlark source (not a builtin).
func sourcePos(stack starlark.CallStack) (syntax.Position, bool) {
	for i := len(stack) - 1; i >= 0; i-- {
		if p := stack[i].Pos; p.Line > 0 {
			return p, true
		}
	}
	return syntax.Position{}, false
}

// sandbox is what every handler of a pack shares: limits, the key field
// of each declared collection and the db methods.
type sandbox struct {
	lim     Limits
	keys    map[string]Collection
	methods map[string]*starlark.Builtin
}

func newSandbox(lim Limits, keys map[string]Collection) *sandbox {
	s := &sandbox{lim: lim, keys: keys, methods: map[string]*starlark.Builtin{}}
	for name, fn := range map[string]func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error){
		"get": dbGet, "put": dbPut, "delete": dbDelete, "keys": dbKeys, "find": dbFind, "next_id": dbNextID, "changed": dbChanged,
	} {
		s.methods[name] = starlark.NewBuiltin("db."+name, fn)
	}
	return s
}

// handler wraps a compiled Starlark function as a tools.Handler. Every
// failure, a Go panic included, comes back as an error.
func (s *sandbox) handler(name string, fn *starlark.Function) tools.Handler {
	return func(ctx context.Context, st *tools.State, args map[string]any) (any, error) {
		return s.call(ctx, "handler "+name, name, fn, st, args)
	}
}

// call runs fn(db, values...) on st, each value a JSON object (a
// handler's arguments; an allow rule's arguments and facts).
func (s *sandbox) call(ctx context.Context, what, name string, fn *starlark.Function, st *tools.State, values ...map[string]any) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, boundError{fmt.Errorf("%s crashed: %v", what, p)}
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s was cancelled: %w", what, context.Cause(ctx))
	}
	in := starlark.Tuple{&dbValue{st: st, sb: s}}
	budget := newBudget(s.lim.ArgBytes)
	for _, v := range values {
		sv, err := toStarlark(v, budget, 0)
		if err != nil {
			if errors.Is(err, errTooBig) {
				return nil, fmt.Errorf("arguments of %s exceed %d bytes", name, s.lim.ArgBytes)
			}
			return nil, fmt.Errorf("arguments of %s: %w", name, err)
		}
		in = append(in, sv)
	}
	th, stop := newThread(ctx, name, s.lim.Steps)
	defer stop()
	v, err := starlark.Call(th, fn, in, nil)
	if err != nil {
		return nil, callError(ctx, th, what, s.lim.Steps, err)
	}
	out, err := fromStarlark(v, newBudget(s.lim.ResultBytes), 0)
	if errors.Is(err, errTooBig) {
		return nil, boundError{fmt.Errorf("%s returned more than %d bytes", what, s.lim.ResultBytes)}
	}
	if err != nil {
		return nil, boundError{fmt.Errorf("%s returned a non-JSON value: %w", what, err)}
	}
	return out, nil
}

// dbValue is the db object a handler receives: its episode's state.
type dbValue struct {
	st *tools.State
	sb *sandbox
}

var _ starlark.HasAttrs = (*dbValue)(nil)

func (d *dbValue) String() string        { return "<db>" }
func (d *dbValue) Type() string          { return "db" }
func (d *dbValue) Freeze()               {}
func (d *dbValue) Truth() starlark.Bool  { return starlark.True }
func (d *dbValue) Hash() (uint32, error) { return 0, errors.New("unhashable type: db") }

func (d *dbValue) Attr(name string) (starlark.Value, error) {
	if b, ok := d.sb.methods[name]; ok {
		return b.BindReceiver(d), nil
	}
	return nil, nil
}

func (d *dbValue) AttrNames() []string {
	return []string{"changed", "delete", "find", "get", "keys", "next_id", "put"}
}

// dbGet is db.get(coll, key, *path): a copy of the record, or of the
// value at path in it (dict keys and list indexes), None where there is
// none. A path lets a policy read one date of a flight without the copy
// of every date it flies, which was most of a Starlark call's cost.
func dbGet(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d := b.Receiver().(*dbValue)
	var coll, key string
	head := args
	if len(head) > 2 {
		head = args[:2]
	}
	if err := starlark.UnpackPositionalArgs(b.Name(), head, kwargs, 2, &coll, &key); err != nil {
		return nil, err
	}
	v, ok := d.st.Get(coll, key)
	if !ok {
		return starlark.None, nil
	}
	for i, step := range args[min(len(args), 2):] {
		var err error
		if v, ok, err = valueAtStep(v, step); err != nil {
			return nil, fmt.Errorf("%s: path element %d: %w", b.Name(), i+1, err)
		}
		if !ok {
			return starlark.None, nil
		}
	}
	sv, err := toStarlark(v, newBudget(d.sb.lim.DatabaseBytes), 0)
	if err != nil {
		return nil, fmt.Errorf("%s(%q, %q): %w", b.Name(), coll, key, err)
	}
	return sv, nil
}

func dbPut(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d := b.Receiver().(*dbValue)
	var coll, key string
	var rec starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 3, &coll, &key, &rec); err != nil {
		return nil, err
	}
	v, err := fromStarlark(rec, newBudget(d.sb.lim.ResultBytes), 0)
	if errors.Is(err, errTooBig) {
		return nil, fmt.Errorf("%s(%q, %q): the record exceeds %d bytes", b.Name(), coll, key, d.sb.lim.ResultBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("%s(%q, %q): the record is not JSON: %w", b.Name(), coll, key, err)
	}
	if col, ok := d.sb.keys[coll]; ok && col.Key != "" {
		if err := checkKey(v, col, key); err != nil {
			return nil, fmt.Errorf("%s(%q, %q): %w", b.Name(), coll, key, err)
		}
	}
	if err := d.st.Put(coll, key, v); err != nil {
		return nil, fmt.Errorf("%s(%q, %q): %w", b.Name(), coll, key, err)
	}
	return starlark.None, nil
}

// valueAtStep is the value under one path element of db.get: a string
// in an object, an integer in a list (negative from the end, as in
// Starlark); ok is false where there is none. The error is a Go
// record's that has no JSON.
func valueAtStep(v any, step starlark.Value) (any, bool, error) {
	switch v.(type) {
	case map[string]any, []any, nil, bool, string, float64, int, int64, json.Number:
	default:
		// A record a built-in handler wrote may be a Go struct: step
		// through its JSON, as toStarlark would convert it.
		g, err := genericJSON(v)
		if err != nil {
			return nil, false, err
		}
		v = g
	}
	switch k := step.(type) {
	case starlark.String:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		e, ok := m[string(k)]
		return e, ok, nil
	case starlark.Int:
		i, ok := k.Int64()
		l, isList := v.([]any)
		if !ok || !isList {
			return nil, false, nil
		}
		if i < 0 {
			i += int64(len(l))
		}
		if i < 0 || i >= int64(len(l)) {
			return nil, false, nil
		}
		return l[i], true, nil
	}
	// As dict.get: a key of another type is in no record.
	return nil, false, nil
}

// checkKey says whether a record's key field equals its key in the
// database, so a collection cannot hold a record under a foreign key.
func checkKey(rec any, col Collection, key string) error {
	if _, ok := rec.(map[string]any); !ok {
		return fmt.Errorf("a record must be an object, not %s", jsonKind(rec))
	}
	got, ok := lookup(rec, col.Key)
	if !ok {
		return fmt.Errorf("the record has no key field %q", col.Key)
	}
	if len(col.Within) == 0 {
		if keyString(got) != key {
			return fmt.Errorf("the record's key field %q is %s, want %q", col.Key, shortJSON(got), key)
		}
		return nil
	}
	var parts []string
	for _, f := range col.Within {
		p, ok := lookup(rec, f)
		if !ok {
			return fmt.Errorf("the record has no parent field %q", f)
		}
		parts = append(parts, keyString(p))
	}
	if want := strings.Join(append(parts, keyString(got)), "/"); want != key {
		return fmt.Errorf("the record's fields %s and %q give the key %q, want %q", strings.Join(col.Within, ", "), col.Key, want, key)
	}
	return nil
}

// keyString is a key field's value as a database key: strings as they
// are, integers in decimal, and "\x00" (never a key, not even "") for any
// other value.
func keyString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return "\x00"
}

func dbDelete(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d := b.Receiver().(*dbValue)
	var coll, key string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &coll, &key); err != nil {
		return nil, err
	}
	if err := d.st.Delete(coll, key); err != nil {
		return nil, fmt.Errorf("%s(%q, %q): %w", b.Name(), coll, key, err)
	}
	return starlark.None, nil
}

// dbChanged is db.changed(coll, key): whether a write of this
// conversation put or deleted the record.
func dbChanged(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d := b.Receiver().(*dbValue)
	var coll, key string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &coll, &key); err != nil {
		return nil, err
	}
	return starlark.Bool(d.st.Written(coll, key)), nil
}

func dbKeys(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d := b.Receiver().(*dbValue)
	var coll string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &coll); err != nil {
		return nil, err
	}
	keys := d.st.Keys(coll)
	out := make([]starlark.Value, len(keys))
	for i, k := range keys {
		out[i] = starlark.String(k)
	}
	return starlark.NewList(out), nil
}

// dbFind filters in Go and converts only the matching records.
func dbFind(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d := b.Receiver().(*dbValue)
	var coll string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, nil, 1, &coll); err != nil {
		return nil, err
	}
	type cond struct {
		path string
		want any
	}
	conds := make([]cond, len(kwargs))
	for i, kv := range kwargs {
		path := string(kv[0].(starlark.String))
		want, err := fromStarlark(kv[1], newBudget(d.sb.lim.ArgBytes), 0)
		if err != nil {
			return nil, fmt.Errorf("%s(%q, %s=...): the value is not JSON: %w", b.Name(), coll, path, err)
		}
		conds[i] = cond{path, want}
	}
	bud := newBudget(d.sb.lim.DatabaseBytes)
	var out []starlark.Value
	for _, k := range d.st.Keys(coll) {
		v, _ := d.st.Get(coll, k)
		if _, generic := v.(map[string]any); !generic && v != nil {
			g, err := genericJSON(v)
			if err != nil {
				return nil, fmt.Errorf("%s(%q): record %q: %w", b.Name(), coll, k, err)
			}
			v = g
		}
		match := true
		for _, c := range conds {
			got, ok := lookup(v, c.path)
			if !ok || !jsonEqual(got, c.want) {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		sv, err := toStarlark(v, bud, 0)
		if err != nil {
			return nil, fmt.Errorf("%s(%q): record %q: %w", b.Name(), coll, k, err)
		}
		out = append(out, sv)
	}
	return starlark.NewList(out), nil
}

func dbNextID(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d := b.Receiver().(*dbValue)
	var name string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &name); err != nil {
		return nil, err
	}
	return starlark.MakeInt(d.st.Next(name)), nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case int64, float64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}
