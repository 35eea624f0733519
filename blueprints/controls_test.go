package blueprints

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestParseRange(t *testing.T) {
	cases := []struct {
		in   string
		want Range
		err  bool
	}{
		{"1-3", Range{1, 3}, false},
		{"0-5", Range{0, 5}, false},
		{"2-7", Range{2, 7}, false},
		{"4", Range{4, 4}, false},
		{"0", Range{0, 0}, false},
		{"0-0", Range{0, 0}, false},
		{"3-3", Range{3, 3}, false},
		{" 2-7 ", Range{2, 7}, false},
		{"2 - 7", Range{2, 7}, false},
		{"\t6-10\n", Range{6, 10}, false},
		{"007-010", Range{7, 10}, false},
		{"", Range{}, true},
		{" ", Range{}, true},
		{"-", Range{}, true},
		{"3-1", Range{}, true},
		{"-1", Range{}, true},
		{"-1-3", Range{}, true},
		{"1-", Range{}, true},
		{"1--3", Range{}, true},
		{"1-2-3", Range{}, true},
		{"a", Range{}, true},
		{"a-b", Range{}, true},
		{"1-b", Range{}, true},
		{"1.5", Range{}, true},
		{"1.0-2.0", Range{}, true},
		{"1..3", Range{}, true},
		{"1,3", Range{}, true},
		{"1 3", Range{}, true},
		{"0x10", Range{}, true},
		{"99999999999999999999", Range{}, true},
		{"1-99999999999999999999", Range{}, true},
		{"½", Range{}, true},
		{"１-３", Range{}, true}, // full-width digits
	}
	for _, tc := range cases {
		got, err := ParseRange(tc.in)
		if tc.err {
			if err == nil {
				t.Errorf("ParseRange(%q) = %v, want an error", tc.in, got)
			} else if !strings.Contains(err.Error(), "range") {
				t.Errorf("ParseRange(%q) error %q does not say what it parsed", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseRange(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestRangeMethods(t *testing.T) {
	cases := []struct {
		r   Range
		s   string
		ok  bool
		in  []int
		out []int
	}{
		{Range{1, 3}, "1-3", true, []int{1, 2, 3}, []int{0, 4, -1}},
		{Range{5, 5}, "5", true, []int{5}, []int{4, 6}},
		{Range{0, 0}, "0", true, []int{0}, []int{1, -1}},
		{Range{3, 1}, "3-1", false, nil, []int{1, 2, 3}},
		{Range{-1, 2}, "-1-2", false, nil, nil},
	}
	for _, tc := range cases {
		if got := tc.r.String(); got != tc.s {
			t.Errorf("%#v.String() = %q, want %q", tc.r, got, tc.s)
		}
		if err := tc.r.Check(); (err == nil) != tc.ok {
			t.Errorf("%#v.Check() = %v", tc.r, err)
		}
		for _, v := range tc.in {
			if !tc.r.Contains(v) {
				t.Errorf("%v does not contain %d", tc.r, v)
			}
		}
		for _, v := range tc.out {
			if tc.r.Contains(v) {
				t.Errorf("%v contains %d", tc.r, v)
			}
		}
		if tc.ok {
			back, err := ParseRange(tc.r.String())
			if err != nil || back != tc.r {
				t.Errorf("ParseRange(%q) = %v, %v; want %v back", tc.r.String(), back, err, tc.r)
			}
		}
	}
}

// FuzzParseRange: never panic; what parses is a valid range that prints
// and parses back to itself.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"1-3", "4", " 2 - 7 ", "-", "3-1", "-1", "1-2-3", "", "99999999999999999999", "+1-+2", "0x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRange(s)
		if err != nil {
			if !strings.Contains(err.Error(), "range") {
				t.Errorf("ParseRange(%q) error %q does not name the range", s, err)
			}
			return
		}
		if r.Check() != nil || r.Min < 0 || r.Max < r.Min {
			t.Errorf("ParseRange(%q) = %v, an invalid range", s, r)
		}
		back, err := ParseRange(r.String())
		if err != nil || back != r {
			t.Errorf("ParseRange(%q) = %v, but %q parses to %v, %v", s, r, r.String(), back, err)
		}
	})
}

// counts returns how often each value of r occurs at positions [lo, hi).
func counts(a *Allocator, r Range, lo, hi int) []int {
	c := make([]int, r.Max-r.Min+1)
	for i := lo; i < hi; i++ {
		v := a.At(i)
		if !r.Contains(v) {
			panic(fmt.Sprintf("At(%d) = %d outside %v", i, v, r))
		}
		c[v-r.Min]++
	}
	return c
}

func shares(r Range, weights []float64) []float64 {
	n := r.Max - r.Min + 1
	out := make([]float64, n)
	total := 0.0
	for i := range out {
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		out[i] = w
		total += w
	}
	for i := range out {
		out[i] /= total
	}
	return out
}

var tau2Weights = []float64{10, 60, 23, 15, 5, 1}

func TestAllocatorCounts(t *testing.T) {
	cases := []struct {
		name    string
		r       Range
		weights []float64
		step    float64
		tol     float64
	}{
		{"writes 0-5 even", Range{0, 5}, nil, stepGolden, 2},
		{"reads 2-7 even", Range{2, 7}, nil, stepSqrt2, 2},
		{"writes 0-5 tau2 weights", Range{0, 5}, tau2Weights, stepGolden, 2},
		{"reads 2-7 tau2 weights", Range{2, 7}, tau2Weights, stepSqrt2, 2},
		{"zero weights", Range{1, 4}, []float64{1, 0, 3, 0}, stepGolden, 2},
		{"two values", Range{0, 1}, nil, stepSqrt2, 2},
		{"one value", Range{3, 3}, nil, stepGolden, 0},
		{"17 values", Range{0, 16}, nil, stepGolden, 2},
		{"behaviours", Range{0, 7}, nil, stepSqrt3, 2.5},
	}
	const n = 1000
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := shares(tc.r, tc.weights)
			for seed := uint64(0); seed < 50; seed++ {
				a, err := NewAllocator(tc.r, tc.weights, seed, "writes", tc.step)
				if err != nil {
					t.Fatal(err)
				}
				c := counts(a, tc.r, 0, n)
				for v := range c {
					if math.Abs(float64(c[v])-p[v]*n) > tc.tol {
						t.Errorf("seed %d: value %d occurs %d times in %d, want %.1f ± %v", seed, tc.r.Min+v, c[v], n, p[v]*n, tc.tol)
					}
					if p[v] == 0 && c[v] != 0 {
						t.Errorf("seed %d: value %d has weight 0 but occurs %d times", seed, tc.r.Min+v, c[v])
					}
				}
			}
		})
	}
}

// Any contiguous window of indices holds each value in proportion to its
// weight: that is what makes a shard or a resumed range fair. The
// deviation of a low-discrepancy sequence grows like log(n), so windows
// get a wider (but fixed) tolerance than the full run.
func TestAllocatorWindows(t *testing.T) {
	cases := []struct {
		name    string
		r       Range
		weights []float64
		step    float64
	}{
		{"writes even", Range{0, 5}, nil, stepGolden},
		{"writes tau2", Range{0, 5}, tau2Weights, stepGolden},
		{"reads even", Range{2, 7}, nil, stepSqrt2},
		{"reads skewed", Range{2, 4}, []float64{5, 1, 2}, stepSqrt2},
		{"behaviours", Range{0, 7}, nil, stepSqrt3},
	}
	const n, tol = 1000, 4.0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := shares(tc.r, tc.weights)
			for seed := uint64(0); seed < 20; seed++ {
				a, err := NewAllocator(tc.r, tc.weights, seed, "reads", tc.step)
				if err != nil {
					t.Fatal(err)
				}
				// D(i) = occurrences of v in [0, i) minus its share of i; the
				// deviation over [lo, hi) is D(hi) - D(lo), so the worst window
				// deviation is max D - min D.
				worst, where := 0.0, ""
				for v, pv := range p {
					lo, hi := 0.0, 0.0
					loAt, hiAt := 0, 0
					c := 0
					for i := 1; i <= n; i++ {
						if a.At(i-1)-tc.r.Min == v {
							c++
						}
						d := float64(c) - pv*float64(i)
						if d < lo {
							lo, loAt = d, i
						}
						if d > hi {
							hi, hiAt = d, i
						}
					}
					if hi-lo > worst {
						worst, where = hi-lo, fmt.Sprintf("value %d in the window between %d and %d", tc.r.Min+v, min(loAt, hiAt), max(loAt, hiAt))
					}
				}
				if worst > tol {
					t.Errorf("seed %d: %s deviates by %.2f from its share, want ≤ %v", seed, where, worst, tol)
				}
				// Shards: ten contiguous shards of 100 each hold every value
				// to within 2 of its share.
				for s := 0; s < 10; s++ {
					c := counts(a, tc.r, s*100, (s+1)*100)
					for v := range c {
						if d := math.Abs(float64(c[v]) - p[v]*100); d > 2.5 {
							t.Errorf("seed %d shard %d: value %d occurs %d times, want %.1f", seed, s, tc.r.Min+v, c[v], p[v]*100)
						}
					}
				}
			}
		})
	}
}

func TestAllocatorDeterministic(t *testing.T) {
	a, _ := NewAllocator(Range{0, 5}, nil, 7, "writes", stepGolden)
	b, _ := NewAllocator(Range{0, 5}, nil, 7, "writes", stepGolden)
	c, _ := NewAllocator(Range{0, 5}, nil, 8, "writes", stepGolden)
	d, _ := NewAllocator(Range{0, 5}, nil, 7, "reads", stepGolden)
	sameC, sameD := 0, 0
	for i := range 500 {
		if a.At(i) != b.At(i) {
			t.Fatalf("At(%d) differs between equal allocators", i)
		}
		if a.At(i) == c.At(i) {
			sameC++
		}
		if a.At(i) == d.At(i) {
			sameD++
		}
	}
	// Another seed or salt shifts the sequence.
	if sameC == 500 || sameD == 500 {
		t.Error("the seed or salt does not change the allocation")
	}
	// Out-of-order queries agree with in-order ones (a worker may start anywhere).
	for _, i := range []int{999, 0, 500, 123456, 1 << 30} {
		if a.At(i) != b.At(i) {
			t.Errorf("At(%d) differs", i)
		}
	}
}

func TestAllocatorErrors(t *testing.T) {
	cases := []struct {
		name    string
		r       Range
		weights []float64
		want    string
	}{
		{"too few weights", Range{0, 5}, []float64{1, 2}, "2 weights given for range 0-5, which has 6 values"},
		{"too many weights", Range{1, 1}, []float64{1, 2}, "2 weights"},
		{"negative weight", Range{0, 1}, []float64{1, -1}, ">= 0"},
		{"NaN weight", Range{0, 1}, []float64{1, math.NaN()}, "finite"},
		{"infinite weight", Range{0, 1}, []float64{math.Inf(1), 1}, "finite"},
		{"all zero", Range{0, 2}, []float64{0, 0, 0}, "all zero"},
		{"empty weights", Range{0, 2}, []float64{}, "0 weights"},
	}
	for _, tc := range cases {
		_, err := NewAllocator(tc.r, tc.weights, 1, "x", stepGolden)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestStreamsIndependent(t *testing.T) {
	// Every coordinate of a stream separates it from its neighbours, and
	// the same coordinates give the same stream on a second call.
	seen := map[uint64]string{}
	for _, seed := range []uint64{0, 1} {
		for _, domain := range []string{"retail", "airline"} {
			for _, idx := range []int{0, 1, -1} {
				for _, purpose := range []string{"blueprint", "user", "agent"} {
					k := fmt.Sprintf("%d/%s/%d/%s", seed, domain, idx, purpose)
					r1, r2 := Stream(seed, domain, idx, purpose), Stream(seed, domain, idx, purpose)
					a := r1.Uint64()
					for n, x := 0, a; n < 8; n, x = n+1, r1.Uint64() {
						if y := r2.Uint64(); x != y {
							t.Errorf("Stream(%s) is not deterministic at draw %d", k, n)
						}
					}
					if prev, dup := seen[a]; dup {
						t.Errorf("Stream(%s) starts like Stream(%s)", k, prev)
					}
					seen[a] = k
				}
			}
		}
	}
	if len(seen) != 2*2*3*3 {
		t.Errorf("%d distinct streams, want %d", len(seen), 2*2*3*3)
	}

	// Mix depends on the seed, on every label, on their order and count,
	// and on where one label ends and the next begins.
	differ := []struct {
		what string
		a, b uint64
	}{
		{"seeds", Mix(1, "a"), Mix(2, "a")},
		{"first labels", Mix(1, "a", "c"), Mix(1, "b", "c")},
		{"last labels", Mix(1, "a", "b"), Mix(1, "a", "c")},
		{"label order", Mix(1, "a", "b"), Mix(1, "b", "a")},
		{"label boundaries", Mix(1, "ab", "c"), Mix(1, "a", "bc")},
		{"an empty label", Mix(1, "a"), Mix(1, "a", "")},
		{"no label", Mix(1), Mix(1, "")},
	}
	for _, d := range differ {
		if d.a == d.b {
			t.Errorf("Mix ignores %s: both give %#x", d.what, d.a)
		}
	}

	// The same seed gives the same release with any build of synth, so
	// Mix is pinned: a change here reshuffles every release ever made.
	if got, want := Mix(1, "x"), uint64(0x7f7da5d227573cad); got != want {
		t.Errorf("Mix(1, \"x\") = %#x, want %#x", got, want)
	}
	if got, want := Stream(7, "retail", 3, "user").Uint64(), uint64(0x8dda6f60634661f); got != want {
		t.Errorf("Stream(7, retail, 3, user) starts with %#x, want %#x", got, want)
	}
}
