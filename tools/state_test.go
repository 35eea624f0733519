package tools

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
)

// rec is a small record; maps marshal with sorted keys, so they hash canonically.
func rec(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// testColls builds a fresh copy of a small database each time, so that a
// test can compare a state with a base built from the expected contents.
func testColls() map[string]map[string]any {
	return map[string]map[string]any{
		"orders": {
			"#W1": rec("order_id", "#W1", "status", "pending", "total", 10.5),
			"#W2": rec("order_id", "#W2", "status", "delivered", "total", 3.0),
			"#W3": rec("order_id", "#W3", "status", "pending", "total", 7.25),
		},
		"users": {
			"u1": rec("user_id", "u1", "orders", []any{"#W1", "#W2"}),
			"u2": rec("user_id", "u2", "orders", []any{"#W3"}),
		},
	}
}

func newTestBase(t *testing.T, colls map[string]map[string]any) *Base {
	t.Helper()
	b, err := NewBase(colls)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// op is one state mutation: a Put when v is non-nil, else a Delete.
type op struct {
	coll, key string
	v         any
}

func apply(t *testing.T, st *State, ops []op) {
	t.Helper()
	for _, o := range ops {
		var err error
		if o.v != nil {
			err = st.Put(o.coll, o.key, o.v)
		} else {
			err = st.Delete(o.coll, o.key)
		}
		if err != nil {
			t.Fatalf("%s/%s: %v", o.coll, o.key, err)
		}
	}
}

// expected applies ops to a plain copy of the contents.
func expected(ops []op) map[string]map[string]any {
	c := testColls()
	for _, o := range ops {
		if c[o.coll] == nil {
			c[o.coll] = map[string]any{}
		}
		if o.v != nil {
			c[o.coll][o.key] = o.v
		} else {
			delete(c[o.coll], o.key)
		}
	}
	return c
}

func TestStateCopyOnWrite(t *testing.T) {
	cases := []struct {
		name string
		ops  []op
	}{
		{"no writes", nil},
		{"update existing", []op{{"orders", "#W1", rec("order_id", "#W1", "status", "cancelled", "total", 10.5)}}},
		{"insert new key", []op{{"orders", "#W0", rec("order_id", "#W0", "status", "pending", "total", 1.0)}}},
		{"insert key sorting last", []op{{"orders", "#W9", rec("order_id", "#W9")}}},
		{"delete existing", []op{{"orders", "#W2", nil}}},
		{"delete absent is a no-op", []op{{"orders", "#W404", nil}}},
		{"delete then put back", []op{{"orders", "#W2", nil}, {"orders", "#W2", rec("order_id", "#W2", "status", "x")}}},
		{"insert then delete", []op{{"orders", "#W7", rec("order_id", "#W7")}, {"orders", "#W7", nil}}},
		{"new collection", []op{{"returns", "r1", rec("id", "r1")}, {"returns", "r0", rec("id", "r0")}}},
		{"many", []op{
			{"orders", "#W1", rec("status", "a")},
			{"orders", "#W1", rec("status", "b")},
			{"users", "u2", nil},
			{"users", "u3", rec("user_id", "u3")},
			{"orders", "#W3", nil},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := newTestBase(t, testColls())
			baseHash := base.Hash()
			baseKeys := map[string][]string{}
			for _, c := range base.Collections() {
				baseKeys[c] = slices.Clone(base.Keys(c))
			}
			other := base.NewState()

			st := base.NewState()
			apply(t, st, tc.ops)
			want := expected(tc.ops)

			// The episode sees exactly the expected contents.
			for coll, recs := range want {
				keys := slices.Sorted(maps.Keys(recs))
				if got := st.Keys(coll); !slices.Equal(got, keys) && !(len(got) == 0 && len(keys) == 0) {
					t.Errorf("Keys(%s) = %v, want %v", coll, got, keys)
				}
				for k, v := range recs {
					got, ok := st.Get(coll, k)
					if !ok || fmt.Sprint(got) != fmt.Sprint(v) {
						t.Errorf("Get(%s, %s) = %v, %v; want %v", coll, k, got, ok, v)
					}
				}
			}
			for _, o := range tc.ops {
				if _, ok := want[o.coll][o.key]; !ok {
					if v, ok := st.Get(o.coll, o.key); ok {
						t.Errorf("Get(%s, %s) = %v after delete, want absent", o.coll, o.key, v)
					}
				}
			}
			// The hash is that of a base built from the expected contents.
			if got, w := st.Hash(), newTestBase(t, want).Hash(); got != w {
				t.Errorf("state hash %s, want the hash of its contents %s", got, w)
			}
			// The base and a sibling episode are untouched.
			if base.Hash() != baseHash {
				t.Error("base hash changed")
			}
			for c, ks := range baseKeys {
				if !slices.Equal(base.Keys(c), ks) {
					t.Errorf("base keys of %s changed: %v", c, base.Keys(c))
				}
				if !slices.Equal(other.Keys(c), ks) {
					t.Errorf("sibling state keys of %s changed: %v", c, other.Keys(c))
				}
			}
			orig := testColls()
			for c, recs := range orig {
				for k, v := range recs {
					got, ok := base.Get(c, k)
					if !ok || fmt.Sprint(got) != fmt.Sprint(v) {
						t.Errorf("base %s/%s = %v, want %v", c, k, got, v)
					}
					got, ok = other.Get(c, k)
					if !ok || fmt.Sprint(got) != fmt.Sprint(v) {
						t.Errorf("sibling %s/%s = %v, want %v", c, k, got, v)
					}
				}
			}
			if other.Hash() != baseHash || other.Changed() != 0 {
				t.Error("sibling state changed")
			}
		})
	}
}

func TestStateHashOrderIndependent(t *testing.T) {
	w1 := rec("order_id", "#W1", "status", "cancelled", "total", 10.5)
	w3 := rec("order_id", "#W3", "status", "processed", "total", 7.25)
	u9 := rec("user_id", "u9", "orders", []any{})
	cases := []struct {
		name string
		a, b []op
	}{
		{"two updates swapped",
			[]op{{"orders", "#W1", w1}, {"orders", "#W3", w3}},
			[]op{{"orders", "#W3", w3}, {"orders", "#W1", w1}}},
		{"insert, update and delete in any order",
			[]op{{"users", "u9", u9}, {"orders", "#W1", w1}, {"orders", "#W2", nil}},
			[]op{{"orders", "#W2", nil}, {"users", "u9", u9}, {"orders", "#W1", w1}}},
		{"intermediate values do not matter",
			[]op{{"orders", "#W1", rec("status", "tmp")}, {"orders", "#W3", w3}, {"orders", "#W1", w1}},
			[]op{{"orders", "#W1", w1}, {"orders", "#W3", rec("x", 1.0)}, {"orders", "#W3", w3}}},
		{"map key order is irrelevant",
			[]op{{"orders", "#W1", map[string]any{"a": 1.0, "b": "x"}}},
			[]op{{"orders", "#W1", map[string]any{"b": "x", "a": 1.0}}}},
		{"integer and float of one number",
			[]op{{"orders", "#W1", rec("n", 2)}},
			[]op{{"orders", "#W1", rec("n", 2.0)}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := newTestBase(t, testColls())
			a, b := base.NewState(), base.NewState()
			apply(t, a, tc.a)
			apply(t, b, tc.b)
			if a.Hash() != b.Hash() {
				t.Errorf("hashes differ: %s vs %s", a.Hash(), b.Hash())
			}
			if a.Hash() == base.Hash() {
				t.Error("a changed state hashes like the base")
			}
		})
	}
}

func TestStateRestoreGivesBaseHash(t *testing.T) {
	orig := testColls()
	cases := []struct {
		name string
		ops  []op
	}{
		{"put then restore", []op{{"orders", "#W1", rec("status", "cancelled")}, {"orders", "#W1", orig["orders"]["#W1"]}}},
		{"restore with an equal copy", []op{{"orders", "#W1", rec("status", "x")}, {"orders", "#W1", rec("order_id", "#W1", "status", "pending", "total", 10.5)}}},
		{"put same value", []op{{"users", "u1", orig["users"]["u1"]}}},
		{"delete then restore", []op{{"users", "u2", nil}, {"users", "u2", orig["users"]["u2"]}}},
		{"insert then delete", []op{{"orders", "#W8", rec("a", "b")}, {"orders", "#W8", nil}}},
		{"delete absent", []op{{"nowhere", "k", nil}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := newTestBase(t, testColls())
			st := base.NewState()
			apply(t, st, tc.ops)
			if st.Hash() != base.Hash() {
				t.Errorf("hash %s, want base hash %s", st.Hash(), base.Hash())
			}
		})
	}
}

func TestStateDistinctContentsDistinctHashes(t *testing.T) {
	base := newTestBase(t, testColls())
	seen := map[string]string{base.Hash(): "base"}
	for i, v := range []any{
		rec("status", "a"), rec("status", "b"), rec("status", "A"), rec("status", 1.0),
		rec("status", "1"), rec("status", nil), rec("status", []any{"a"}), rec(), "a", 1.5,
	} {
		st := base.NewState()
		if err := st.Put("orders", "#W1", v); err != nil {
			t.Fatal(err)
		}
		if prev, dup := seen[st.Hash()]; dup {
			t.Errorf("value %d (%v) hashes like %s", i, v, prev)
		}
		seen[st.Hash()] = fmt.Sprint(v)
	}
	// The same value under another key or collection is another state.
	a, b := base.NewState(), base.NewState()
	_ = a.Put("orders", "#W5", rec("x", 1.0))
	_ = b.Put("users", "#W5", rec("x", 1.0))
	if a.Hash() == b.Hash() {
		t.Error("a record in another collection hashes the same")
	}
}

func TestStatePutUnmarshalable(t *testing.T) {
	base := newTestBase(t, testColls())
	st := base.NewState()
	if err := st.Put("orders", "#W1", make(chan int)); err == nil {
		t.Fatal("Put accepted a value that cannot be hashed")
	}
	if st.Hash() != base.Hash() {
		t.Error("a failed Put changed the hash")
	}
	if v, _ := st.Get("orders", "#W1"); fmt.Sprint(v) != fmt.Sprint(testColls()["orders"]["#W1"]) {
		t.Errorf("a failed Put changed the record: %v", v)
	}
	if _, err := NewBase(map[string]map[string]any{"c": {"k": func() {}}}); err == nil {
		t.Error("NewBase accepted a record that cannot be hashed")
	}
}

func TestStateNext(t *testing.T) {
	base := newTestBase(t, testColls())
	a, b := base.NewState(), base.NewState()
	for i := 1; i <= 3; i++ {
		if got := a.Next("order"); got != i {
			t.Errorf("Next(order) #%d = %d", i, got)
		}
	}
	if got := a.Next("return"); got != 1 {
		t.Errorf("a second counter starts at %d, want 1", got)
	}
	if got := b.Next("order"); got != 1 {
		t.Errorf("counters leak between episodes: %d", got)
	}
	if a.Hash() != base.Hash() {
		t.Error("Next changed the state hash")
	}
}

func TestStateChanged(t *testing.T) {
	base := newTestBase(t, testColls())
	st := base.NewState()
	apply(t, st, []op{{"orders", "#W1", rec("a", 1.0)}, {"orders", "#W1", rec("a", 2.0)}, {"users", "u1", nil}, {"users", "u404", nil}})
	if got := st.Changed(); got != 2 {
		t.Errorf("Changed() = %d, want 2", got)
	}
}

func TestStatePristine(t *testing.T) {
	base := newTestBase(t, testColls())
	for _, tc := range []struct {
		name string
		do   func(st *State) *State
		want bool
	}{
		{"new", func(st *State) *State { return st }, true},
		{"fork of new", func(st *State) *State { return st.Fork() }, true},
		{"read", func(st *State) *State { st.Get("orders", "#W1"); st.Keys("orders"); return st }, true},
		{"put", func(st *State) *State { apply(t, st, []op{{"orders", "#W1", rec("a", 2.0)}}); return st }, false},
		{"delete", func(st *State) *State { apply(t, st, []op{{"users", "u1", nil}}); return st }, false},
		{"counter", func(st *State) *State { st.Next("order"); return st }, false},
		{"fork of written", func(st *State) *State { st.Next("order"); return st.Fork() }, false},
	} {
		if got := tc.do(base.NewState()).Pristine(); got != tc.want {
			t.Errorf("%s: Pristine() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Many episodes share one base concurrently (run with -race).
func TestStateConcurrentEpisodes(t *testing.T) {
	base := newTestBase(t, testColls())
	want := base.Hash()
	var wg sync.WaitGroup
	hashes := make([]string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := base.NewState()
			for i := range 50 {
				key := fmt.Sprintf("#W%d", i%5)
				_ = st.Put("orders", key, rec("g", float64(g), "i", float64(i)))
				_ = st.Keys("orders")
				_, _ = st.Get("users", "u1")
				_ = base.Keys("orders")
			}
			for i := range 5 {
				_ = st.Delete("orders", fmt.Sprintf("#W%d", i))
			}
			for k, v := range testColls()["orders"] {
				_ = st.Put("orders", k, v)
			}
			hashes[g] = st.Hash()
		}()
	}
	wg.Wait()
	for g, h := range hashes {
		if h != want {
			t.Errorf("episode %d ended at %s, want the base hash %s", g, h, want)
		}
	}
	if base.Hash() != want {
		t.Error("base hash changed")
	}
}

func TestBaseCollections(t *testing.T) {
	base := newTestBase(t, testColls())
	if got := base.Collections(); !slices.Equal(got, []string{"orders", "users"}) {
		t.Errorf("Collections() = %v", got)
	}
	if got := base.Keys("orders"); !slices.Equal(got, []string{"#W1", "#W2", "#W3"}) {
		t.Errorf("Keys(orders) = %v", got)
	}
	if got := base.Keys("nope"); len(got) != 0 {
		t.Errorf("Keys(nope) = %v", got)
	}
	if _, ok := base.Get("nope", "x"); ok {
		t.Error("Get of a missing collection found something")
	}
	empty := newTestBase(t, map[string]map[string]any{})
	if empty.Hash() == base.Hash() {
		t.Error("empty and non-empty bases hash the same")
	}
	if empty.NewState().Hash() != empty.Hash() {
		t.Error("a fresh state of an empty base hashes differently from it")
	}
}

// TestTraceHolds: a traced read's answer is reusable on exactly the
// states that hold what it read as the base does.
func TestTraceHolds(t *testing.T) {
	b := newTestBase(t, testColls())
	read := func(st *State) *Trace {
		return st.Traced(func() {
			st.Get("orders", "#W1")
			st.Keys("users")
		})
	}
	tr := read(b.NewState())
	if !tr.Reusable() {
		t.Fatal("a call that only read is not reusable")
	}
	for _, tc := range []struct {
		name string
		ops  []op
		want bool
	}{
		{"the base", nil, true},
		{"another record changed", []op{{"orders", "#W2", rec("order_id", "#W2", "status", "cancelled")}}, true},
		{"the record read changed", []op{{"orders", "#W1", rec("order_id", "#W1", "status", "cancelled")}}, false},
		{"the record read deleted", []op{{"orders", "#W1", nil}}, false},
		{"a record added to the listed collection", []op{{"users", "u3", rec("user_id", "u3")}}, false},
	} {
		st := b.NewState()
		apply(t, st, tc.ops)
		if got := st.Holds(tr); got != tc.want {
			t.Errorf("%s: Holds = %v, want %v", tc.name, got, tc.want)
		}
	}
	st := b.NewState()
	if tr := st.Traced(func() { st.Next("order") }); tr.Reusable() {
		t.Error("a call that advanced a counter is reusable")
	}
	if tr := st.Traced(func() { _ = st.Put("orders", "#W9", rec("order_id", "#W9")) }); tr.Reusable() {
		t.Error("a call that wrote is reusable")
	}
	st.Traced(func() {})
	if st.trace != nil {
		t.Error("the state still records after Traced returned")
	}
}

// Written tells the records the episode put or deleted, and counts as a
// read of the record: an answer that asked it on the base serves a
// state only while that record is unchanged there too.
func TestStateWritten(t *testing.T) {
	base := newTestBase(t, testColls())
	st := base.NewState()
	var before bool
	tr := st.Traced(func() { before = st.Written("orders", "#W1") })
	apply(t, st, []op{{"orders", "#W2", rec("order_id", "#W2", "status", "cancelled")}})
	if before || st.Written("orders", "#W1") || !st.Written("orders", "#W2") {
		t.Fatalf("written #W1 before %v, after %v; #W2 after %v: want false, false, true", before, st.Written("orders", "#W1"), st.Written("orders", "#W2"))
	}
	if !st.Holds(tr) {
		t.Error("a write of #W2 voids an answer that asked only whether #W1 was written")
	}
	apply(t, st, []op{{"orders", "#W1", nil}})
	if !st.Written("orders", "#W1") || st.Holds(tr) {
		t.Error("the deletion of #W1 is not written, or keeps the answer that asked about it")
	}
}

// TestRecordDigestAllocatesNothing: a record's hash input is built on the
// stack; a value that makes the buffer escape (a call through an
// interface with it) would allocate it on every write's hash.
func TestRecordDigestAllocatesNothing(t *testing.T) {
	rec := map[string]any{"order_id": "#W1", "items": []any{map[string]any{"price": 12.5, "name": "Lamp"}}, "status": "pending"}
	if n := testing.AllocsPerRun(50, func() { _, _ = recordDigest("orders", "#W1", rec) }); n != 0 {
		t.Errorf("recordDigest allocates %v times a call", n)
	}
}
