package tools

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"

	"github.com/synth-data/synth/record"
)

// digest is an additive multiset hash: the state hash is the lane-wise sum
// of one digest per record, so an overlay updates it in O(1) per write
// instead of rehashing the whole database.
type digest [4]uint64

func (d *digest) add(o digest) {
	for i := range d {
		d[i] += o[i]
	}
}

func (d *digest) sub(o digest) {
	for i := range d {
		d[i] -= o[i]
	}
}

func recordDigest(coll, key string, v any) (digest, error) {
	// The hash's whole input is built in one buffer on the stack, which
	// holds most records: a written record's JSON was a twentieth of
	// what a run allocated.
	var stack [8 << 10]byte
	b := digestHead(stack[:0], coll, key)
	b, ok := AppendJSON(b, v)
	if !ok {
		j, err := json.Marshal(v)
		if err != nil {
			return digest{}, fmt.Errorf("hash %s/%s: %w", coll, key, err)
		}
		b = append(digestHead(b[:0], coll, key), j...)
	}
	return digestSum(sha256.Sum256(b)), nil
}

// digestHead starts a record's hash input: its collection and key.
func digestHead(b []byte, coll, key string) []byte {
	b = append(b, coll...)
	b = append(b, 0)
	b = append(b, key...)
	return append(b, 0)
}

func digestOf(coll, key string, b []byte) digest {
	h := sha256.New()
	h.Write([]byte(coll))
	h.Write([]byte{0})
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write(b)
	var sum [32]byte
	h.Sum(sum[:0])
	return digestSum(sum)
}

func digestSum(sum [32]byte) digest {
	var d digest
	for i := range d {
		d[i] = binary.LittleEndian.Uint64(sum[i*8:])
	}
	return d
}

// Base is an immutable database: collections of records by key. Records
// are any JSON-marshalable values (Go structs marshal with a fixed field
// order and maps with sorted keys, so the encoding is canonical). Nothing
// may modify a record after it is in a Base.
type Base struct {
	colls   map[string]map[string]any
	keys    map[string][]string
	digests map[string]map[string]digest
	sum     digest
	// rendered holds the JSON of records stored as pointers or maps, keyed
	// by their address: tool results that return a base record unchanged
	// (most reads) reuse it instead of marshalling the record again.
	rendered map[uintptr][]byte
}

// addressOf is the identity of a record held by reference (a pointer or
// a map), or 0 for a value.
func addressOf(v any) uintptr {
	if v == nil {
		return 0
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map:
		return rv.Pointer()
	}
	return 0
}

// NewBase indexes and hashes a database. It takes ownership of colls.
func NewBase(colls map[string]map[string]any) (*Base, error) {
	b := &Base{
		colls:    colls,
		keys:     make(map[string][]string, len(colls)),
		digests:  make(map[string]map[string]digest, len(colls)),
		rendered: map[uintptr][]byte{},
	}
	for coll, recs := range colls {
		ks := make([]string, 0, len(recs))
		ds := make(map[string]digest, len(recs))
		for k, v := range recs {
			ks = append(ks, k)
			raw, err := Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("hash %s/%s: %w", coll, k, err)
			}
			d := digestOf(coll, k, raw)
			ds[k] = d
			b.sum.add(d)
			if a := addressOf(v); a != 0 {
				b.rendered[a] = raw
			}
		}
		sort.Strings(ks)
		b.keys[coll] = ks
		b.digests[coll] = ds
	}
	return b, nil
}

// Rendered returns the JSON of v if v is a record of the base.
func (b *Base) Rendered(v any) ([]byte, bool) {
	a := addressOf(v)
	if a == 0 {
		return nil, false
	}
	raw, ok := b.rendered[a]
	return raw, ok
}

// Get returns a record of the base.
func (b *Base) Get(coll, key string) (any, bool) {
	v, ok := b.colls[coll][key]
	return v, ok
}

// Keys returns the sorted keys of a collection. The slice is shared: do not modify it.
func (b *Base) Keys(coll string) []string { return b.keys[coll] }

// Collections returns the sorted collection names.
func (b *Base) Collections() []string {
	return slices.Sorted(maps.Keys(b.colls))
}

// Hash is the canonical hash of the base state.
func (b *Base) Hash() string { return formatDigest(b.sum) }

// NewState starts an episode over the base.
func (b *Base) NewState() *State { return &State{base: b} }

type entry struct {
	v       any
	deleted bool
	// sum is the record's digest once Hash has computed it: records are
	// never modified in place, so it holds until the entry is replaced.
	sum    digest
	summed bool
}

// State is one episode's view of the database: reads fall through to the
// immutable base, writes land in a small overlay. The state's hash is
// computed when asked for, from the records the overlay holds last: a
// record written twice, or a state thrown away, costs no hashing.
type State struct {
	base  *Base
	over  map[string]map[string]entry
	seq   map[string]int
	trace *Trace
	// faults are the failures the episode's runtime returns, and calls
	// how many times each faulted tool was called so far.
	faults []Fault
	calls  map[string]int
}

// Fault is a failure the runtime returns at the Call-th call of Tool
// (counting from 1 the calls that would go through: valid arguments, a
// handler that accepts them) instead of running it: a declined payment,
// a timeout. The output is what the call observes, after "Error: ".
type Fault struct {
	Tool   string
	Call   int
	Output string
}

// Inject makes the state's runtime return faults; a state's calls are
// counted from here.
func (s *State) Inject(faults []Fault) {
	s.faults, s.calls = faults, map[string]int{}
}

// faulty reports whether a fault is still to come for tool.
func (s *State) faulty(tool string) bool {
	for _, f := range s.faults {
		if f.Tool == tool && f.Call > s.calls[tool] {
			return true
		}
	}
	return false
}

// fault counts a call of tool that would go through and returns the
// failure injected at it.
func (s *State) fault(tool string) (string, bool) {
	s.calls[tool]++
	for _, f := range s.faults {
		if f.Tool == tool && f.Call == s.calls[tool] {
			return f.Output, true
		}
	}
	return "", false
}

// Trace records what a call used of a state: the records it got and the
// collections it listed. A read's answer depends on nothing else (its
// handler is deterministic), so it is the answer on any state that holds
// those as the base does (Holds): the generator's and the agent's reads
// after a write that touched other records reuse the base's answers.
type Trace struct {
	recs  []traced
	colls []string
	// spent is set when the call counted, wrote or deleted: its answer is
	// then not reusable.
	spent bool
}

type traced struct{ coll, key string }

// Reusable reports whether the traced call only read.
func (t *Trace) Reusable() bool { return !t.spent }

// Size is about the bytes the trace holds, for cache budgets.
func (t *Trace) Size() int {
	n := 24 * (len(t.recs) + len(t.colls))
	for _, r := range t.recs {
		n += len(r.coll) + len(r.key)
	}
	return n
}

// compact drops the records of collections the call listed: a change to
// any record of a listed collection already voids the answer.
func (t *Trace) compact() {
	slices.Sort(t.colls)
	t.colls = slices.Compact(t.colls)
	t.recs = slices.DeleteFunc(t.recs, func(r traced) bool {
		_, listed := slices.BinarySearch(t.colls, r.coll)
		return listed
	})
	slices.SortFunc(t.recs, func(a, b traced) int { return cmp.Or(cmp.Compare(a.coll, b.coll), cmp.Compare(a.key, b.key)) })
	t.recs = slices.Compact(t.recs)
}

// Traced runs f with s recording what it uses, and returns the trace.
// A state serves one episode on one goroutine, so the recording needs
// no lock.
func (s *State) Traced(f func()) *Trace {
	t := &Trace{}
	prev := s.trace
	s.trace = t
	defer func() { s.trace = prev }()
	f()
	t.compact()
	return t
}

// Holds reports whether s holds everything t used as the base does.
func (s *State) Holds(t *Trace) bool {
	if len(s.over) == 0 {
		return true
	}
	for _, c := range t.colls {
		if len(s.over[c]) > 0 {
			return false
		}
	}
	for _, r := range t.recs {
		if _, ok := s.over[r.coll][r.key]; ok {
			return false
		}
	}
	return true
}

// Base returns the database the state started from: handlers that index
// the base (by fields no write changes) key their index on it.
func (s *State) Base() *Base { return s.base }

// Get returns the current record, or false when absent or deleted.
func (s *State) Get(coll, key string) (any, bool) {
	if s.trace != nil {
		s.trace.recs = append(s.trace.recs, traced{coll, key})
	}
	if e, ok := s.over[coll][key]; ok {
		return e.v, !e.deleted
	}
	return s.base.Get(coll, key)
}

// Written reports whether a write of the episode put or deleted the
// record: policy code asks it of a record the customer had changed in
// the conversation (a compensation offered once the change is done). It
// counts as a read of the record, so an answer given on the base serves
// only states where the record is unchanged too.
func (s *State) Written(coll, key string) bool {
	if s.trace != nil {
		s.trace.recs = append(s.trace.recs, traced{coll, key})
	}
	_, ok := s.over[coll][key]
	return ok
}

// Put stores a record. The value must not be modified afterwards: copy a
// record before changing it. It must be JSON-marshalable: the state's
// hash is over its JSON.
func (s *State) Put(coll, key string, v any) error {
	if !plainJSON(v, 0) {
		// Not the generic JSON a handler builds: make sure it marshals,
		// or the state could not be hashed.
		if _, err := Marshal(v); err != nil {
			return fmt.Errorf("put %s/%s: %w", coll, key, err)
		}
	}
	s.set(coll, key, entry{v: v})
	return nil
}

// plainJSON reports, without marshalling, whether v is made of the
// generic JSON values (objects, lists, strings, numbers, booleans, null)
// that always marshal.
func plainJSON(v any, depth int) bool {
	if depth > 64 {
		return false
	}
	switch x := v.(type) {
	case nil, string, bool, int, int64, json.Number:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case map[string]any:
		for _, e := range x {
			if !plainJSON(e, depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !plainJSON(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// Delete removes a record; deleting an absent record is a no-op.
func (s *State) Delete(coll, key string) error {
	if _, ok := s.Get(coll, key); !ok {
		return nil
	}
	s.set(coll, key, entry{deleted: true})
	return nil
}

func (s *State) set(coll, key string, e entry) {
	if s.trace != nil {
		s.trace.spent = true
	}
	if s.over == nil {
		s.over = make(map[string]map[string]entry)
	}
	m := s.over[coll]
	if m == nil {
		m = make(map[string]entry)
		s.over[coll] = m
	}
	m[key] = e
}

// Keys returns the sorted keys of a collection as the episode sees it.
func (s *State) Keys(coll string) []string {
	if s.trace != nil {
		s.trace.colls = append(s.trace.colls, coll)
	}
	base := s.base.Keys(coll)
	over := s.over[coll]
	if len(over) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(over))
	for _, k := range base {
		if e, ok := over[k]; !ok || !e.deleted {
			out = append(out, k)
		}
	}
	for k, e := range over {
		if _, inBase := s.base.colls[coll][k]; !inBase && !e.deleted {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Next returns the next value of a named counter, starting at 1. Counters
// are part of the episode so new ids are deterministic.
func (s *State) Next(name string) int {
	if s.trace != nil {
		s.trace.spent = true
	}
	if s.seq == nil {
		s.seq = make(map[string]int)
	}
	s.seq[name]++
	return s.seq[name]
}

// Hash is the canonical hash of the episode's state: equal for equal
// contents, whatever the order of the writes that produced them. A
// record that cannot be marshalled (a handler bug) hashes by its Go
// rendering, so the state still compares unequal to any other.
func (s *State) Hash() string {
	sum := s.base.sum
	for coll, m := range s.over {
		for key, e := range m {
			if d, ok := s.base.digests[coll][key]; ok {
				sum.sub(d)
			}
			if e.deleted {
				continue
			}
			if !e.summed {
				d, err := recordDigest(coll, key, e.v)
				if err != nil {
					d = digestOf(coll, key, []byte(fmt.Sprintf("%#v", e.v)))
				}
				e.sum, e.summed = d, true
				m[key] = e
			}
			sum.add(e.sum)
		}
	}
	return formatDigest(sum)
}

// Fork is a copy of the state that can be written without touching s:
// an agent tries a write on it to learn what the write would do (the
// refund, the total) before the customer confirms it. Records are never
// modified in place (Put's contract), so the copy shares them. A fork
// has no faults: the trial learns what the write does, and the episode's
// own call meets the failure.
func (s *State) Fork() *State {
	f := &State{base: s.base, over: make(map[string]map[string]entry, len(s.over)), seq: maps.Clone(s.seq)}
	for coll, m := range s.over {
		f.over[coll] = maps.Clone(m)
	}
	return f
}

// Pristine reports whether the state is its base: no record written or
// deleted, no counter advanced. A deterministic call then answers as it
// would on any other pristine state of the same base.
func (s *State) Pristine() bool {
	return len(s.seq) == 0 && s.Changed() == 0
}

// Changed reports the number of records the overlay holds.
func (s *State) Changed() int {
	n := 0
	for _, m := range s.over {
		n += len(m)
	}
	return n
}

func formatDigest(d digest) string {
	var b [32]byte
	for i, x := range d {
		binary.BigEndian.PutUint64(b[i*8:], x)
	}
	return hex.EncodeToString(b[:])
}

// FaultsOf are the faults a blueprint's tool failures inject.
func FaultsOf(fs []record.ToolFailure) []Fault {
	out := make([]Fault, len(fs))
	for i, f := range fs {
		out[i] = Fault{Tool: f.Tool, Call: f.Call, Output: f.Error}
	}
	return out
}
