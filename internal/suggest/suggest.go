package suggest

import (
	"cmp"
	"reflect"
	"strings"
)

// Closest returns the known word closest to w, or "" when none is close:
// at most two edits away, and fewer edits than w has letters (so a
// one-letter word is never "corrected" into another).
func Closest(w string, known []string) string {
	best, bestD := "", min(3, len(w))
	for _, k := range known {
		if d := Distance(w, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Field is a key a struct type decodes from JSON, and the type of the
// field it fills.
type Field struct {
	Name string
	Type reflect.Type
}

// JSONFields lists the keys struct type t decodes from JSON, in field
// order: the known words a misspelt key of a document is compared with.
func JSONFields(t reflect.Type) []Field {
	var out []Field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		name = cmp.Or(name, f.Name)
		out = append(out, Field{Name: name, Type: f.Type})
	}
	return out
}
