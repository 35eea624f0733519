package audit

import (
	"maps"
	"slices"
	"strings"
)

// checkCounts compares the manifest's counts with what the files hold.
// A count is only compared when every file it covers was read whole;
// otherwise the unreadable file is the defect, and the count would only
// repeat it.
func (s *state) checkCounts() {
	m := s.doc.m
	c := m.Counts
	bad := func(format string, args ...any) { s.defects.add("manifest.json", NoRow, "", "counts", format, args...) }
	if !s.unreadable[kindSFT] {
		if c.SFTRows != s.sftRows {
			bad("counts.sft_rows is %d, the sft files hold %d rows", c.SFTRows, s.sftRows)
		}
		// Duplicates passed verification too; the run dropped them after.
		if !s.unreadable[kindDuplicates] && c.Verified != s.sftRows+len(s.dups) {
			bad("counts.verified is %d, the sft files hold %d rows and rejected/ %d duplicates", c.Verified, s.sftRows, len(s.dups))
		}
		splits := map[string]bool{}
		for k := range c.BySplit {
			splits[k] = true
		}
		for k := range s.sftBySplit {
			splits[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(splits)) {
			if c.BySplit[k] != s.sftBySplit[k] {
				bad("counts.sft_rows_by_split.%s is %d, the sft files hold %d", k, c.BySplit[k], s.sftBySplit[k])
			}
		}
	}
	if !s.unreadable[kindDPO] {
		if c.DPOPairs != s.dpoRows {
			bad("counts.dpo_pairs is %d, the dpo files hold %d rows", c.DPOPairs, s.dpoRows)
		}
		if m.DPO != nil && m.DPO.Pairs != s.dpoRows {
			bad("dpo.pairs is %d, the dpo files hold %d rows", m.DPO.Pairs, s.dpoRows)
		}
	}
	if !s.unreadable[kindBlueprints] && c.Blueprints != len(s.bps) {
		bad("counts.blueprints is %d, the blueprint files hold %d", c.Blueprints, len(s.bps))
	}
	if !s.unreadable[kindRejected] && c.Rejected != len(s.rejected) {
		bad("counts.rejected is %d, the rejected files hold %d", c.Rejected, len(s.rejected))
	}
	if !s.unreadable[kindDuplicates] {
		byReason := map[string]int{}
		for _, d := range s.dups {
			byReason[d.Reason]++
		}
		for _, k := range slices.Sorted(maps.Keys(byReason)) {
			if c.Duplicates[k] != byReason[k] {
				bad("counts.duplicates_removed.%s is %d, rejected/ records %d", k, c.Duplicates[k], byReason[k])
			}
		}
		for _, k := range slices.Sorted(maps.Keys(c.Duplicates)) {
			if _, ok := byReason[k]; !ok && c.Duplicates[k] != 0 {
				bad("counts.duplicates_removed.%s is %d, rejected/ records none", k, c.Duplicates[k])
			}
		}
	}
	if c.Verified+c.Rejected != c.Simulated {
		bad("counts: %d verified + %d rejected != %d simulated", c.Verified, c.Rejected, c.Simulated)
	}
}

// checkCoverage requires every blueprint to end up in exactly one place:
// an SFT row if its dialogue passed, a rejected record if not, a
// duplicate record if it passed but repeats another. A row dropped from
// a file, even with the manifest rewritten to match, leaves its
// blueprint in none.
func (s *state) checkCoverage() {
	if s.unreadable[kindSFT] || s.unreadable[kindRejected] || s.unreadable[kindBlueprints] || s.unreadable[kindDuplicates] {
		return
	}
	places := map[string][]string{}
	for id := range s.sft {
		places[id] = append(places[id], "an SFT row")
	}
	trials := map[string]bool{}
	for _, r := range s.rejected {
		if r.Trial != nil {
			// Failed trials of the LLM engine: any number per blueprint,
			// besides its verified dialogue if one passed.
			trials[r.BlueprintID] = true
			continue
		}
		places[r.BlueprintID] = append(places[r.BlueprintID], "a rejected record")
	}
	for id := range trials {
		if len(places[id]) == 0 {
			places[id] = append(places[id], "rejected trials")
		}
	}
	byIndex := map[int]string{}
	for id, info := range s.bps {
		byIndex[info.bp.Index] = id
	}
	for _, d := range s.dups {
		places[d.ID] = append(places[d.ID], "a duplicate record")
		info := s.bps[d.ID]
		switch kept := byIndex[d.KeptIndex]; {
		case info == nil:
			s.defects.add(d.file, d.line, d.ID, "duplicates", "blueprint %q is not in blueprints/", d.ID)
		case d.Split != info.bp.Split:
			s.defects.add(d.file, d.line, d.ID, "split", "record says split %s, its blueprint %s", d.Split, info.bp.Split)
		case kept == "" || s.sft[kept] == nil:
			s.defects.add(d.file, d.line, d.ID, "duplicates", "the kept twin, blueprint %d, has no SFT row", d.KeptIndex)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.bps)) {
		info := s.bps[id]
		switch p := places[id]; {
		case len(p) > 1:
			s.defects.add(info.file, info.line, id, "coverage", "blueprint has %s", strings.Join(p, " and "))
		case len(p) == 0:
			s.defects.add(info.file, info.line, id, "coverage", "blueprint has no SFT row and no rejected or duplicate record (a row was dropped?)")
		}
	}
}
