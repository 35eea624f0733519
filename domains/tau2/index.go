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
// A handler has only the episode's State, which does not say which Base
// it came from; the index is keyed by the identity of the base's
// OrderCollection record's list of keys (never written), which is
// unique to that base. Entries keep their record alive, so the address
// cannot be reused while the entry exists.

// maxIndexes bounds how many bases one handler set keeps indexes for; a
// program has one base per pack, tests a few.
const maxIndexes = 8

type indexEntry[T any] struct {
	ref []any
	idx *T
}

// indexCache holds the indexes of one handler set. Lookups are lock-free
// (an atomically swapped, copied-on-write slice); builds are serialised.
type indexCache[T any] struct {
	anchor  string // the OrderCollection record that identifies a base
	build   func(st *tools.State) *T
	mu      sync.Mutex
	entries atomic.Pointer[[]indexEntry[T]]
}

// get returns the index of st's base, or nil when the pack has no key
// order (the handlers then scan, in sorted key order).
func (c *indexCache[T]) get(st *tools.State) *T {
	ref, ok := orderKeys(st, c.anchor)
	if !ok || len(ref) == 0 {
		return nil
	}
	if p := c.entries.Load(); p != nil {
		for _, e := range *p {
			if len(e.ref) == len(ref) && &e.ref[0] == &ref[0] {
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
			if len(e.ref) == len(ref) && &e.ref[0] == &ref[0] {
				return e.idx
			}
		}
	}
	idx := c.build(st)
	next := make([]indexEntry[T], 0, maxIndexes)
	if len(old) >= maxIndexes {
		old = old[1:]
	}
	next = append(append(next, old...), indexEntry[T]{ref: ref, idx: idx})
	c.entries.Store(&next)
	return idx
}
