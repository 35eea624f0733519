package tau2

import (
	"sync"
	"sync/atomic"

	"github.com/synth-data/synth/tools"
)

// τ² finds users by email or name and items by id by scanning dicts, and
// searches flights the same way. The handlers answer from indexes built
// once per database instead, over fields no τ² tool changes (emails,
// names, products, flight routes); each candidate is still read from the
// episode's state, so what the episode changed (a zip, seats) is seen.
//
// The index is keyed by the identity of the base's OrderCollection
// record's list of keys (never written), which is unique to that base, or
// by the base itself when it has none. Entries keep their record (or
// base) alive, so the address cannot be reused while the entry exists.

// maxIndexes bounds how many bases one handler set keeps indexes for; a
// program has one base per pack, tests a few.
const maxIndexes = 8

type indexEntry[T any] struct {
	ref  []any
	base *tools.Base
	idx  *T
}

// indexCache holds the indexes of one handler set. Lookups are lock-free
// (an atomically swapped, copied-on-write slice); builds are serialised.
type indexCache[T any] struct {
	anchor  string // the OrderCollection record that identifies a base
	build   func(st *tools.State) *T
	mu      sync.Mutex
	entries atomic.Pointer[[]indexEntry[T]]
}

// get returns the index of st's base. A base without OrderCollection (a
// database synth generated, not τ²'s, whose scans then go in sorted key
// order) is keyed by the base itself and indexed from it, not from the
// episode's changes.
func (c *indexCache[T]) get(st *tools.State) *T {
	ref, _ := orderKeys(st, c.anchor)
	base := st.Base()
	same := func(e indexEntry[T]) bool {
		if len(ref) > 0 {
			return len(e.ref) == len(ref) && &e.ref[0] == &ref[0]
		}
		return e.ref == nil && e.base == base
	}
	if p := c.entries.Load(); p != nil {
		for _, e := range *p {
			if same(e) {
				return e.idx
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var old []indexEntry[T]
	if p := c.entries.Load(); p != nil {
		old = *p
		for _, e := range old {
			if same(e) {
				return e.idx
			}
		}
	}
	entry := indexEntry[T]{}
	if len(ref) > 0 {
		entry.ref, entry.idx = ref, c.build(st)
	} else {
		entry.base, entry.idx = base, c.build(base.NewState())
	}
	next := make([]indexEntry[T], 0, maxIndexes)
	if len(old) >= maxIndexes {
		old = old[1:]
	}
	next = append(append(next, old...), entry)
	c.entries.Store(&next)
	return entry.idx
}
