package audit

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// normalize maps near-identical texts to one key: case, punctuation and
// spacing are what a copy of an instruction differs in.
func normalize(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// checkInstructions flags a user instruction (what the simulated user
// was told to want) that appears, normalized, in two splits: the same
// task in train and test measures memorisation, not skill.
func (s *state) checkInstructions() {
	byText := map[string][]firstSeen{}
	for id, info := range s.bps {
		if key := normalize(info.bp.Instruction); key != "" {
			byText[key] = append(byText[key], firstSeen{split: info.split, file: info.file, id: id, text: info.bp.Instruction, row: info.line})
		}
	}
	for _, key := range slices.Sorted(maps.Keys(byText)) {
		crossSplit(byText[key], func(o, first firstSeen) {
			s.defects.add(o.file, o.row, o.id, "near_duplicate", "user instruction %s (%s) is, normalized, that of %s in %s (%s line %d)",
				clip(o.text), o.split, first.id, first.split, first.file, first.row+1)
		})
	}
}

// checkFirstMessages reports first user messages that are the same,
// normalized, in two splits. They are warnings, not defects: the user
// simulator opens many dialogues with the same generic line ("Can I
// return an item from a recent order?"), which says nothing of the task.
// The task itself is compared by checkInstructions.
func (s *state) checkFirstMessages() {
	for _, key := range slices.Sorted(maps.Keys(s.firsts)) {
		if key == "" {
			continue
		}
		crossSplit(s.firsts[key], func(o, first firstSeen) {
			s.warnings.add(o.file, o.row, o.id, "near_duplicate", "first user message %s (%s) is, normalized, that of %s in %s (%s row %d)",
				clip(o.text), o.split, first.id, first.split, first.file, first.row)
		})
	}
}

// crossSplit calls pair for each occurrence that lies in another split
// than the first one (in file and row order), with that first one: one
// report per leaked row rather than one per pair of rows.
func crossSplit(seen []firstSeen, pair func(o, first firstSeen)) {
	if len(seen) < 2 {
		return
	}
	slices.SortFunc(seen, func(a, b firstSeen) int {
		return cmp.Or(strings.Compare(a.file, b.file), cmp.Compare(a.row, b.row))
	})
	for _, o := range seen[1:] {
		if o.split != seen[0].split {
			pair(o, seen[0])
		}
	}
}
