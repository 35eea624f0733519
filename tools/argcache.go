package tools

import "sync"

// The same arguments are parsed several times per dialogue: the generator
// reads with them, the agent calls with them, the verifier checks and
// replays them. Decoding and validating them again was a tenth of a run's
// CPU, so a toolkit keeps the latest parses. Only successes are kept (an
// error is worded afresh each time), and callers get their own copy, as
// a fresh decode would give them.

// argCacheSize is the entries of each of the cache's two generations: a
// few hundred dialogues' worth, enough for a dialogue's stages to meet.
const argCacheSize = 8192

type argCache struct {
	mu       sync.Mutex
	cur, old map[string]map[string]any
}

func newArgCache() *argCache {
	return &argCache{cur: map[string]map[string]any{}}
}

func (c *argCache) get(key string) (map[string]any, bool) {
	c.mu.Lock()
	v, ok := c.cur[key]
	if !ok {
		if v, ok = c.old[key]; ok {
			c.cur[key] = v
		}
	}
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	return copyJSON(v).(map[string]any), true
}

// put keeps a copy of v, so the caller may change v.
func (c *argCache) put(key string, v map[string]any) {
	kept := copyJSON(v).(map[string]any)
	c.mu.Lock()
	c.cur[key] = kept
	if len(c.cur) >= argCacheSize {
		c.old, c.cur = c.cur, make(map[string]map[string]any, argCacheSize)
	}
	c.mu.Unlock()
}

// copyJSON deep-copies a decoded JSON value (objects and arrays; the
// scalars are immutable).
func copyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyJSON(e)
		}
		return out
	}
	return v
}
