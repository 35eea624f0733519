package usersim

import (
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
)

// entities are the blueprint's facts, which a customer may say verbatim.
func entities(bp *record.Blueprint) []string {
	var out []string
	for _, v := range bp.Persona.Known {
		out = append(out, v)
	}
	first, last, _ := strings.Cut(bp.Persona.Known["name"], " ")
	out = append(out, first, last)
	for _, g := range bp.Goals {
		out = append(out, g.Target.Label)
		var labels []string
		for _, s := range slices.Concat(g.Items, g.New, g.RevisedItems) {
			out = append(out, s.Label)
			labels = append(labels, s.Label)
		}
		out = append(out, model.JoinAnd(labels))
		for _, m := range []map[string]string{g.Slots, g.Revised} {
			for _, v := range m {
				out = append(out, v)
			}
		}
		if len(g.Slots) > 1 {
			// Slots said together (an address).
			out = append(out, model.SayGroup(slices.Sorted(maps.Keys(g.Slots)), g.Slots))
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

var (
	reMu    sync.Mutex
	reCache = map[string]*regexp.Regexp{}
)

// wordRE matches e as a whole word.
func wordRE(e string) *regexp.Regexp {
	reMu.Lock()
	defer reMu.Unlock()
	re, ok := reCache[e]
	if !ok {
		re = regexp.MustCompile(`(^|[^\pL\pN])` + regexp.QuoteMeta(e) + `([^\pL\pN]|$)`)
		reCache[e] = re
	}
	return re
}

// strip removes the entities from a message, case-insensitively and only
// as whole words (a state "CO" must not eat the "co" of "could").
func strip(text string, ents []string) string {
	low := strings.ToLower(text)
	for _, e := range ents {
		if e = strings.ToLower(e); e != "" && strings.Contains(low, e) {
			re := wordRE(e)
			for {
				next := re.ReplaceAllString(low, "$1 $2")
				if next == low {
					break
				}
				low = next
			}
		}
	}
	return low
}

func words(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		w = strings.Trim(strings.ToLower(w), ",.!?:;-\"()")
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}
