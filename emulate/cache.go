package emulate

import (
	"container/list"
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
)

// lru is a bounded map that forgets the least recently used entry. Not
// safe for concurrent use; its owners lock.
type lru[V any] struct {
	cap   int
	ll    *list.List
	items map[string]*list.Element
}

type lruItem[V any] struct {
	key string
	val V
}

func newLRU[V any](capacity int) *lru[V] {
	return &lru[V]{cap: capacity, ll: list.New(), items: map[string]*list.Element{}}
}

func (c *lru[V]) get(key string) (V, bool) {
	if e, ok := c.items[key]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*lruItem[V]).val, true
	}
	var zero V
	return zero, false
}

// put stores val and returns the entry it evicted, if any.
func (c *lru[V]) put(key string, val V) (evicted string, ok bool) {
	if e, found := c.items[key]; found {
		e.Value.(*lruItem[V]).val = val
		c.ll.MoveToFront(e)
		return "", false
	}
	c.items[key] = c.ll.PushFront(&lruItem[V]{key: key, val: val})
	if c.ll.Len() <= c.cap {
		return "", false
	}
	last := c.ll.Back()
	c.ll.Remove(last)
	k := last.Value.(*lruItem[V]).key
	delete(c.items, k)
	return k, true
}

// domainCache loads each (domain, seed) once: building a domain's
// database is the most expensive thing the emulator does.
type domainCache struct {
	mu       sync.Mutex
	lru      *lru[*domainEntry]
	packDir  string // Options.Domain
	packName string // the name of its domain
}

type domainEntry struct {
	once sync.Once
	d    *domain.Domain
	err  error
}

func domainKey(name string, seed uint64) string { return name + "\x00" + strconv.FormatUint(seed, 10) }

func (c *domainCache) put(name string, seed uint64, d *domain.Domain) {
	e := &domainEntry{d: d}
	e.once.Do(func() {})
	c.mu.Lock()
	c.lru.put(domainKey(name, seed), e)
	c.mu.Unlock()
}

func (c *domainCache) get(_ context.Context, name string, seed uint64) (*domain.Domain, error) {
	key := domainKey(name, seed)
	c.mu.Lock()
	e, ok := c.lru.get(key)
	if !ok {
		e = &domainEntry{}
		c.lru.put(key, e)
	}
	c.mu.Unlock()
	e.once.Do(func() {
		src := name
		if c.packDir != "" && name == c.packName {
			src = c.packDir
		}
		e.d, e.err = domains.Load(src, seed)
		if e.err != nil {
			e.err = badf("blueprint domain %q (seed %d): %v; for a domain pack start synth emulate with --domain DIR", name, seed, e.err)
		} else if e.d.Name != name {
			e.err = fmt.Errorf("domain %s loaded as %q", src, e.d.Name)
		}
	})
	return e.d, e.err
}
