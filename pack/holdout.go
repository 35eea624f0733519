package pack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/record"
)

// maxHoldoutBytes bounds holdout.json: τ²-bench's retail tasks take
// about 100 KiB of writes.
const maxHoldoutBytes = 16 << 20

// readHoldout reads the held-out tasks the manifest names: every write a
// tool of the pack's, every argument object.
func (c *checker) readHoldout() {
	file := c.man.Holdout
	if file == "" {
		return
	}
	data, ok := c.read(file, "holdout", maxHoldoutBytes)
	if !ok {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tasks []HeldOut
	if err := dec.Decode(&tasks); err != nil {
		c.add(file, jsonErrorLine(data, err), "", `%v: holdout is a JSON array [{"id": ..., "writes": [{"name": TOOL, "arguments": {...}}]}]`, err)
		return
	}
	bad := 0
	for i, t := range tasks {
		at := strconv.Itoa(i)
		if t.ID == "" {
			c.add(file, 0, at, "task %d has no id", i)
			bad++
		}
		if len(t.Writes) == 0 {
			// A task without writes would hold out every task that writes
			// nothing: it says nothing about contamination.
			c.add(file, 0, at, "task %s has no writes: leave it out (only tasks that write are held out)", t.ID)
			bad++
		}
		for j, w := range t.Writes {
			td, ok := c.byName[w.Name]
			switch {
			case !c.toolsOK:
			case !ok:
				c.add(file, 0, fmt.Sprintf("%d.writes.%d", i, j), "task %s: %q is not a tool of %s", t.ID, w.Name, c.man.Tools)
				bad++
			case td.kind != record.KindWrite:
				c.add(file, 0, fmt.Sprintf("%d.writes.%d", i, j), "task %s: %s is a %s tool; list only the writes", t.ID, w.Name, td.kind)
				bad++
			}
		}
		if bad > maxPerCollection {
			c.add(file, 0, "", "and more: stopped after %d problems", bad)
			return
		}
	}
	c.holdout = tasks
}

// Holdout tells whether a task's writes equal a held-out task's.
type Holdout struct {
	tasks map[string]string // canonical writes → task id
}

// NewHoldout indexes held-out tasks.
func NewHoldout(tasks []HeldOut) *Holdout {
	h := &Holdout{tasks: make(map[string]string, len(tasks))}
	for _, t := range tasks {
		if _, dup := h.tasks[canonicalWrites(t.Writes)]; !dup {
			h.tasks[canonicalWrites(t.Writes)] = t.ID
		}
	}
	return h
}

// Len is the number of distinct held-out write sets.
func (h *Holdout) Len() int { return len(h.tasks) }

// Match returns the held-out task whose writes equal these: the same
// calls, in any order, with arguments equal as JSON values (lists
// compared as multisets, numbers by value), so that a reordered item
// list or 250 against 250.0 does not slip a benchmark task through.
func (h *Holdout) Match(writes []Call) (string, bool) {
	if h == nil || len(writes) == 0 {
		return "", false
	}
	id, ok := h.tasks[canonicalWrites(writes)]
	return id, ok
}

func canonicalWrites(writes []Call) string {
	keys := make([]string, len(writes))
	for i, w := range writes {
		keys[i] = w.Name + canonicalValue(w.Arguments)
	}
	slices.Sort(keys)
	return strings.Join(keys, "\n")
}

// canonicalValue writes a JSON value with sorted keys, sorted lists and
// numbers in one form.
func canonicalValue(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ":" + canonicalValue(x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = canonicalValue(e)
		}
		slices.Sort(parts)
		return "[" + strings.Join(parts, ",") + "]"
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		return strconv.FormatFloat(float64(x), 'g', -1, 64)
	case int:
		return strconv.FormatFloat(float64(x), 'g', -1, 64)
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
