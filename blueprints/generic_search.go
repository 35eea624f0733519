package blueprints

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// maxGrid is the most values a customer gives for one grid parameter
// ("any of these four dates").
const maxGrid = 4

// gridSizes lists the ways to give the grid parameters several values so
// that their combinations number n.
func gridSizes(s *model.SearchModel, n int) [][]int {
	var out [][]int
	var rec func(i, rest int, cur []int)
	rec = func(i, rest int, cur []int) {
		if i == len(s.Grid) {
			if rest == 1 {
				out = append(out, slices.Clone(cur))
			}
			return
		}
		for k := 1; k <= maxGrid && k <= len(s.Pool(s.Grid[i])); k++ {
			if rest%k == 0 {
				rec(i+1, rest/k, append(cur, k))
			}
		}
	}
	rec(0, n, nil)
	return out
}

// peek runs a read on the plan's state without recording it.
func (p *gplan) peek(tool string, args map[string]any) (any, bool) {
	key := readKey(tool, args)
	r, ok := p.memo[key]
	if !ok {
		v, good := p.m.Read(p.ctx, p.st, tool, args)
		r = readResult{v, good}
		p.memo[key] = r
	}
	return r.v, r.ok
}

// search draws what a customer searches for — values per parameter,
// several for grid parameters so that the combinations number size (any
// small number when size is 0) — runs every search and finds a
// criterion that singles out one result.
func (p *gplan) search(s *model.SearchModel, size int) (*target, error) {
	// A round trip's way back is one more search per tool (one date).
	round := s.Return != nil && p.rng.Float64() < s.Return.Share && (size == 0 || len(gridSizes(s, size-1)) > 0)
	if round && size > 0 {
		size--
	}
	var sizes []int
	if size > 0 {
		all := gridSizes(s, size)
		if len(all) == 0 {
			return nil, fmt.Errorf("search %s cannot have %d combinations", s.Name, size)
		}
		sizes = all[p.rng.IntN(len(all))]
	} else {
		sizes = make([]int, len(s.Grid))
		for i := range sizes {
			sizes[i] = 1 + p.rng.IntN(2)
		}
	}
	var last error
	for try := 0; try < 8; try++ {
		among, err := p.drawAmong(s, sizes)
		if err != nil {
			return nil, err
		}
		// The values drawn first must find something on their own, or
		// the grid around them is not worth searching.
		base := map[string]string{}
		for param, vals := range among {
			base[param] = vals[p.firstDrawn[param]]
		}
		found := false
		for _, tool := range s.Tools {
			args := p.m.SearchArgs(tool, base)
			if out, ok := p.peek(tool, args); ok && s.HasItems(out, args) {
				found = true
			}
		}
		if !found {
			last = errors.New("the searches found nothing")
			continue
		}
		combos := s.Combinations(among)
		cands, ok := p.searchAll(s, combos)
		var back map[string][]string
		if ok && round && len(cands) > 0 {
			if back = p.drawBack(s, among); back == nil {
				last = errors.New("no later date to come back on")
				continue
			}
			backCands, good := p.searchAll(s, s.Combinations(back))
			cands, ok = s.Pairs(cands, backCands), good
			combos = append(combos, s.Combinations(back)...)
		}
		if !ok {
			last = errors.New("a search failed")
			continue
		}
		if len(cands) == 0 {
			last = errors.New("the searches found nothing")
			continue
		}
		sel, i, err := p.searchForm(s, cands)
		if err != nil {
			last = err
			continue
		}
		sel.Among, sel.Back = among, back
		sel.Label = model.SearchLabel(s, among, back, sel.Where, sel.Pick)
		var reads []int
		for _, combo := range combos {
			for _, tool := range s.Tools {
				r, _, _ := p.read(tool, p.m.SearchArgs(tool, combo), nil)
				reads = append(reads, r)
			}
		}
		return &target{sel: sel, obj: cands[i], needs: reads}, nil
	}
	return nil, fmt.Errorf("search %s: %w", s.Name, last)
}

// searchAll runs a search's tools on every combination and lists the
// candidates; false when a search fails.
func (p *gplan) searchAll(s *model.SearchModel, combos []map[string]string) ([]map[string]any, bool) {
	var cands []map[string]any
	for _, combo := range combos {
		for _, tool := range s.Tools {
			args := p.m.SearchArgs(tool, combo)
			out, good := p.peek(tool, args)
			if !good {
				return nil, false
			}
			cands = append(cands, s.ItemsOf(out, args)...)
		}
	}
	return cands, true
}

// drawBack draws the way back of a round trip: the route reversed, 1-4
// days after the latest outbound date; nil when no such date is one a
// customer may give.
func (p *gplan) drawBack(s *model.SearchModel, among map[string][]string) map[string][]string {
	after := s.Return.After
	latest, err := time.Parse("2006-01-02", slices.Max(among[after]))
	if err != nil {
		return nil
	}
	var later []string
	for d := 1; d <= 4; d++ {
		if day := latest.AddDate(0, 0, d).Format("2006-01-02"); slices.Contains(s.Pool(after), day) {
			later = append(later, day)
		}
	}
	if len(later) == 0 {
		return nil
	}
	return s.Back(among, []string{later[p.rng.IntN(len(later))]})
}

// searchForm finds an ordering criterion, perhaps with a constraint,
// that singles out one candidate with no tie.
func (p *gplan) searchForm(s *model.SearchModel, cands []map[string]any) (record.Selector, int, error) {
	wheres := []map[string]string{nil}
	for _, d := range s.Describe {
		seen := map[string]bool{}
		for _, c := range cands {
			v, ok := model.ValueAt(c, d)
			if !ok {
				continue
			}
			switch v.(type) {
			case map[string]any, []any, nil:
				continue
			}
			t := tools.Text(v)
			if !seen[t] && len(seen) < 3 {
				seen[t] = true
				wheres = append(wheres, map[string]string{d: t})
			}
		}
	}
	wheres = perWheres(s, wheres, cands)
	var forms []record.Selector
	for _, w := range wheres {
		for _, f := range s.Compare {
			forms = append(forms, record.Selector{Where: w, Pick: "min:" + f}, record.Selector{Where: w, Pick: "max:" + f})
		}
	}
	p.rng.Shuffle(len(forms), func(i, j int) { forms[i], forms[j] = forms[j], forms[i] })
	// Customers mostly want the cheapest or the fastest.
	slices.SortStableFunc(forms, func(a, b record.Selector) int {
		return boolRank(a.Pick[:3] != "min") - boolRank(b.Pick[:3] != "min")
	})
	for _, f := range forms {
		f.Collection = s.Name
		if idlePick(f, cands, "") {
			continue
		}
		if i, err := tools.ResolveKey(f, cands, ""); err == nil {
			return f, i, nil
		}
	}
	return record.Selector{}, -1, errors.New("no criterion singles out one result")
}

// perWheres names a candidate made per key (pack.Legs.Per: a cabin) by
// its key in every condition: the key is what the candidate is (seats
// and a price in that cabin), so the customer always says it.
func perWheres(s *model.SearchModel, wheres []map[string]string, cands []map[string]any) []map[string]string {
	if s.Legs == nil || s.Legs.Per == "" {
		return wheres
	}
	per := s.Legs.Per
	var keys []string
	for _, c := range cands {
		if k := tools.Text(c[per]); k != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	var out []map[string]string
	for _, w := range wheres {
		if _, has := w[per]; has {
			out = append(out, w)
			continue
		}
		for _, k := range keys {
			n := maps.Clone(w)
			if n == nil {
				n = map[string]string{}
			}
			n[per] = k
			if !slices.ContainsFunc(out, func(o map[string]string) bool { return maps.Equal(o, n) }) {
				out = append(out, n)
			}
		}
	}
	return out
}

// idlePick: the selector's filter alone leaves one record, so its
// ordering ("the most recent key named Lunar Forest" when one key has
// that name) orders nothing and only puzzles the reader.
func idlePick(f record.Selector, cands []map[string]any, key string) bool {
	if f.Pick == "" || len(f.Where) == 0 {
		return false
	}
	_, err := tools.ResolveKey(record.Selector{Collection: f.Collection, Where: f.Where}, cands, key)
	return err == nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// drawAmong draws the values a customer gives per search parameter;
// dates of a grid are neighbouring days, other values are all distinct
// (an origin is never the destination).
func (p *gplan) drawAmong(s *model.SearchModel, sizes []int) (map[string][]string, error) {
	among := map[string][]string{}
	p.firstDrawn = map[string]int{}
	taken := map[string]bool{}
	// First values drawn together from one record, when they are values
	// the customer may give (a route that exists, on a date it flies).
	seed := map[string]string{}
	if s.SeedColl != "" {
		keys := p.m.Base.Keys(s.SeedColl)
		v, _ := p.m.Base.Get(s.SeedColl, keys[p.rng.IntN(len(keys))])
		if obj, err := tools.ToObject(v); err == nil {
			for _, f := range s.SeedFields {
				if t := tools.Text(obj[f]); slices.Contains(s.Pool(f), t) {
					seed[f] = t
				}
			}
		}
	}
	for _, param := range s.Params {
		pool := s.Pool(param)
		n := 1
		if gi := slices.Index(s.Grid, param); gi >= 0 {
			n = sizes[gi]
		}
		var free []string
		for _, v := range pool {
			if !taken[v] {
				free = append(free, v)
			}
		}
		if len(free) < n {
			return nil, fmt.Errorf("too few values for %s", param)
		}
		first := free[p.rng.IntN(len(free))]
		if v, ok := seed[param]; ok && !taken[v] {
			first = v
		}
		vals := []string{first}
		if day, err := time.Parse("2006-01-02", first); err == nil && n > 1 {
			for _, off := range []int{1, -1, 2, -2, 3, -3, 4, -4} {
				d := day.AddDate(0, 0, off).Format("2006-01-02")
				if len(vals) < n && slices.Contains(free, d) {
					vals = append(vals, d)
				}
			}
		}
		for len(vals) < n {
			v := free[p.rng.IntN(len(free))]
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		slices.Sort(vals)
		for _, v := range vals {
			taken[v] = true
		}
		p.firstDrawn[param] = slices.Index(vals, first)
		among[param] = vals
	}
	return among, nil
}
