package pack

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/bits"
	"math/rand/v2"

	"go.starlark.net/starlark"
)

// rng is the object random(seed) returns to a generator. It draws from a
// PCG stream and does its own range reduction, so a seed yields the same
// database with every Go release.
type rng struct {
	src    *rand.PCG
	frozen bool
}

var _ starlark.HasAttrs = (*rng)(nil)

func randomBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var seed starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &seed); err != nil {
		return nil, err
	}
	var s uint64
	switch x := seed.(type) {
	case starlark.Int:
		if u, ok := x.Uint64(); ok {
			s = u
		} else if i, ok := x.Int64(); ok {
			s = uint64(i)
		} else {
			s = hashString(x.String())
		}
	case starlark.String:
		s = hashString(string(x))
	default:
		return nil, fmt.Errorf("random: seed must be an int or a string, not %s", seed.Type())
	}
	return &rng{src: rand.NewPCG(s, 0x9e3779b97f4a7c15)}, nil
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func (r *rng) String() string        { return "<random>" }
func (r *rng) Type() string          { return "random" }
func (r *rng) Freeze()               { r.frozen = true }
func (r *rng) Truth() starlark.Bool  { return starlark.True }
func (r *rng) Hash() (uint32, error) { return 0, errors.New("unhashable type: random") }

func (r *rng) AttrNames() []string {
	return []string{"choice", "randint", "random", "sample", "shuffle"}
}

func (r *rng) Attr(name string) (starlark.Value, error) {
	var fn func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)
	switch name {
	case "randint":
		fn = rngRandint
	case "random":
		fn = rngRandom
	case "choice":
		fn = rngChoice
	case "shuffle":
		fn = rngShuffle
	case "sample":
		fn = rngSample
	default:
		return nil, nil
	}
	return starlark.NewBuiltin(name, fn).BindReceiver(r), nil
}

// below returns a uniform integer in [0, n) (Lemire's method).
func (r *rng) below(n uint64) uint64 {
	hi, lo := bits.Mul64(r.src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.src.Uint64(), n)
		}
	}
	return hi
}

// receiver is the random object a method is called on, with the call's
// arguments unpacked into vars, the first required of them not optional.
func receiver(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, required int, vars ...any) (*rng, error) {
	r := b.Receiver().(*rng)
	if r.frozen {
		return nil, fmt.Errorf("%s: this random object is frozen (call random(seed) inside generate)", b.Name())
	}
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, required, vars...); err != nil {
		return nil, err
	}
	return r, nil
}

func rngRandint(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var lo, hi int64
	r, err := receiver(b, args, kwargs, 2, &lo, &hi)
	if err != nil {
		return nil, err
	}
	if hi < lo {
		return nil, fmt.Errorf("randint(%d, %d): the upper bound is below the lower", lo, hi)
	}
	span := uint64(hi-lo) + 1
	if span == 0 { // the whole int64 range
		return starlark.MakeInt64(int64(r.src.Uint64())), nil
	}
	return starlark.MakeInt64(lo + int64(r.below(span))), nil
}

func rngRandom(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r, err := receiver(b, args, kwargs, 0)
	if err != nil {
		return nil, err
	}
	return starlark.Float(float64(r.src.Uint64()>>11) / (1 << 53)), nil
}

func elements(name string, v starlark.Value) ([]starlark.Value, error) {
	seq, ok := v.(starlark.Indexable)
	if !ok {
		return nil, fmt.Errorf("%s: want a list or tuple, not %s", name, v.Type())
	}
	out := make([]starlark.Value, seq.Len())
	for i := range out {
		out[i] = seq.Index(i)
	}
	return out, nil
}

func rngChoice(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var seq starlark.Value
	r, err := receiver(b, args, kwargs, 1, &seq)
	if err != nil {
		return nil, err
	}
	// Indexed in place: a generator draws from the same long lists
	// (every airport, every letter) thousands of times.
	ix, ok := seq.(starlark.Indexable)
	if !ok {
		return nil, fmt.Errorf("%s: want a list or tuple, not %s", b.Name(), seq.Type())
	}
	if ix.Len() == 0 {
		return nil, errors.New("choice: the list is empty")
	}
	return ix.Index(int(r.below(uint64(ix.Len())))), nil
}

// shuffled permutes elems in place (Fisher-Yates).
func (r *rng) shuffled(elems []starlark.Value) {
	for i := len(elems) - 1; i > 0; i-- {
		j := r.below(uint64(i + 1))
		elems[i], elems[j] = elems[j], elems[i]
	}
}

func rngShuffle(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var seq starlark.Value
	r, err := receiver(b, args, kwargs, 1, &seq)
	if err != nil {
		return nil, err
	}
	elems, err := elements(b.Name(), seq)
	if err != nil {
		return nil, err
	}
	r.shuffled(elems)
	return starlark.NewList(elems), nil
}

func rngSample(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var seq starlark.Value
	var k int
	r, err := receiver(b, args, kwargs, 2, &seq, &k)
	if err != nil {
		return nil, err
	}
	elems, err := elements(b.Name(), seq)
	if err != nil {
		return nil, err
	}
	if k < 0 || k > len(elems) {
		return nil, fmt.Errorf("sample: k=%d is outside 0..%d", k, len(elems))
	}
	// A partial Fisher-Yates: the first k slots are the sample.
	for i := range k {
		j := i + int(r.below(uint64(len(elems)-i)))
		elems[i], elems[j] = elems[j], elems[i]
	}
	return starlark.NewList(elems[:k]), nil
}
