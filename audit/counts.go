package audit

import (
	"maps"
	"slices"
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
		if c.Verified != s.sftRows {
			bad("counts.verified is %d, the sft files hold %d rows", c.Verified, s.sftRows)
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
	if c.Verified+c.Rejected != c.Simulated {
		bad("counts: %d verified + %d rejected != %d simulated", c.Verified, c.Rejected, c.Simulated)
	}
}

// checkCoverage requires every blueprint to end up in exactly one place:
// an SFT row if its dialogue passed, a rejected record if not. A row
// dropped from a file, even with the manifest rewritten to match, leaves
// its blueprint with neither.
func (s *state) checkCoverage() {
	if s.unreadable[kindSFT] || s.unreadable[kindRejected] || s.unreadable[kindBlueprints] {
		return
	}
	rejected := map[string]bool{}
	for _, r := range s.rejected {
		rejected[r.BlueprintID] = true
	}
	ids := slices.Sorted(maps.Keys(s.bps))
	for _, id := range ids {
		info := s.bps[id]
		_, kept := s.sft[id]
		switch {
		case kept && rejected[id]:
			s.defects.add(info.file, info.line, id, "coverage", "blueprint has both an SFT row and a rejected record")
		case !kept && !rejected[id]:
			s.defects.add(info.file, info.line, id, "coverage", "blueprint has neither an SFT row nor a rejected record (a row was dropped?)")
		}
	}
}
