package blueprints

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Range is an inclusive integer range given as "MIN-MAX" or "N".
type Range struct {
	Min, Max int
}

// ParseRange reads "MIN-MAX" or "N".
func ParseRange(s string) (Range, error) {
	s = strings.TrimSpace(s)
	lo, hi, found := strings.Cut(s, "-")
	a, err := strconv.Atoi(strings.TrimSpace(lo))
	if err != nil {
		return Range{}, fmt.Errorf("range %q: want MIN-MAX or N with whole numbers, e.g. 1-3", s)
	}
	b := a
	if found {
		if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil {
			return Range{}, fmt.Errorf("range %q: want MIN-MAX or N with whole numbers, e.g. 1-3", s)
		}
	}
	r := Range{a, b}
	return r, r.Check()
}

// Check rejects negative and inverted ranges.
func (r Range) Check() error {
	if r.Min < 0 || r.Max < r.Min {
		return fmt.Errorf("range %d-%d: need 0 <= MIN <= MAX", r.Min, r.Max)
	}
	return nil
}

func (r Range) String() string {
	if r.Min == r.Max {
		return strconv.Itoa(r.Min)
	}
	return fmt.Sprintf("%d-%d", r.Min, r.Max)
}

// Contains reports whether v is in the range.
func (r Range) Contains(v int) bool { return v >= r.Min && v <= r.Max }

// Allocator spreads a control over blueprint indices. It uses a
// low-discrepancy sequence instead of random draws, so any prefix, shard
// or range of indices holds each value in proportion to its weight (to
// within one blueprint), whatever the seed.
type Allocator struct {
	r      Range
	cum    []float64
	offset float64
	step   float64
}

// NewAllocator spreads values of r with the given weights (nil: even).
func NewAllocator(r Range, weights []float64, seed uint64, salt string, step float64) (*Allocator, error) {
	n := r.Max - r.Min + 1
	if weights == nil {
		weights = make([]float64, n)
		for i := range weights {
			weights[i] = 1
		}
	}
	if len(weights) != n {
		return nil, fmt.Errorf("%d weights given for range %s, which has %d values", len(weights), r, n)
	}
	total := 0.0
	for _, w := range weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("weight %v for range %s: weights must be finite and >= 0", w, r)
		}
		total += w
	}
	if total == 0 {
		return nil, fmt.Errorf("weights for range %s are all zero", r)
	}
	if math.IsInf(total, 0) {
		// Each weight divided by an infinite sum is 0: every value but
		// the last would silently get nothing.
		return nil, fmt.Errorf("weights for range %s sum past the largest number; they are relative, so scale them down (e.g. 1,2 for 1e308,2e308)", r)
	}
	a := &Allocator{r: r, step: step}
	acc := 0.0
	for _, w := range weights {
		acc += w / total
		a.cum = append(a.cum, acc)
	}
	a.offset = float64(Mix(seed, salt)>>11) / (1 << 53)
	return a, nil
}

// At returns the value for position i.
func (a *Allocator) At(i int) int {
	_, u := math.Modf(a.offset + float64(i)*a.step)
	for k, c := range a.cum {
		if u < c {
			return a.r.Min + k
		}
	}
	return a.r.Max
}

// Irrational steps for independent low-discrepancy sequences.
const (
	stepGolden = 0.6180339887498949
	stepSqrt2  = 0.41421356237309515
	stepSqrt3  = 0.7320508075688772
	stepSqrt5  = 0.2360679774997898
	stepSqrt7  = 0.6457513110645906
	stepSqrt11 = 0.3166247903553998
)

// Mix hashes a seed with labels into 64 bits.
func Mix(seed uint64, labels ...string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	for _, l := range labels {
		h.Write([]byte{0})
		h.Write([]byte(l))
	}
	return splitmix(h.Sum64())
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Stream returns the RNG for one purpose of one blueprint. Every random
// choice in synth draws from such a stream, never from a shared source,
// so output does not depend on scheduling, worker count or sharding.
func Stream(seed uint64, domain string, index int, purpose string) *rand.Rand {
	s := Mix(seed, domain, strconv.Itoa(index), purpose)
	return rand.New(rand.NewPCG(s, splitmix(s)))
}

// draws are the allocators a generator draws each task's shape from: its
// number of writes, of reads, and its behaviour profile.
type draws struct {
	writes *Allocator
	reads  *Allocator
	behav  *Allocator
	// refuse is 1 for the tasks that hold a forbidden request.
	refuse *Allocator
	// fail is 1 for the tasks whose customer first names a choice the
	// write fails on.
	fail *Allocator
	// outage is 1 for the tasks in which a declared tool failure happens.
	outage *Allocator
}

// newDraws checks a spec's controls and builds its allocators.
func newDraws(spec Spec) (draws, error) {
	var d draws
	if len(spec.Behaviors) == 0 {
		return d, errors.New("no behaviour profiles given")
	}
	if err := spec.Writes.Check(); err != nil {
		return d, fmt.Errorf("--writes: %w", err)
	}
	if err := spec.Reads.Check(); err != nil {
		return d, fmt.Errorf("--reads: %w", err)
	}
	var err error
	if d.writes, err = NewAllocator(spec.Writes, spec.WriteWeights, spec.Seed, "writes", stepGolden); err != nil {
		return d, fmt.Errorf("--writes: %w", err)
	}
	if d.reads, err = NewAllocator(spec.Reads, spec.ReadWeights, spec.Seed, "reads", stepSqrt2); err != nil {
		return d, fmt.Errorf("--reads: %w", err)
	}
	if d.behav, err = NewAllocator(Range{0, len(spec.Behaviors) - 1}, nil, spec.Seed, "behavior", stepSqrt3); err != nil {
		return d, err
	}
	if !(spec.Refusals >= 0 && spec.Refusals <= 1) {
		return d, fmt.Errorf("--refusals %g: want a share from 0 to 1", spec.Refusals)
	}
	if d.refuse, err = NewAllocator(Range{0, 1}, []float64{1 - spec.Refusals, spec.Refusals}, spec.Seed, "refusal", stepSqrt5); err != nil {
		return d, err
	}
	if !(spec.ToolErrors >= 0 && spec.ToolErrors <= 1) {
		return d, fmt.Errorf("--tool-errors %g: want a share from 0 to 1", spec.ToolErrors)
	}
	if d.fail, err = NewAllocator(Range{0, 1}, []float64{1 - spec.ToolErrors, spec.ToolErrors}, spec.Seed, "tool_error", stepSqrt7); err != nil {
		return d, err
	}
	if !(spec.ToolFailures >= 0 && spec.ToolFailures <= 1) {
		return d, fmt.Errorf("--tool-failures %g: want a share from 0 to 1", spec.ToolFailures)
	}
	if d.outage, err = NewAllocator(Range{0, 1}, []float64{1 - spec.ToolFailures, spec.ToolFailures}, spec.Seed, "tool_failure", stepSqrt11); err != nil {
		return d, err
	}
	return d, nil
}

// probeBehavior is a profile that fits any trial task: the first one
// other than changes_mind, which needs a write with a slot to revise.
func probeBehavior(spec Spec) (string, error) {
	for _, b := range spec.Behaviors {
		if b != "changes_mind" {
			return b, nil
		}
	}
	if spec.Writes.Min == 0 {
		return "", errors.New("behaviors: changes_mind alone needs a write in every task; use --writes 1-... or add another profile")
	}
	return "changes_mind", nil
}
