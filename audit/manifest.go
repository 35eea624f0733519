package audit

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/synth-data/synth/release"
)

// Release folders that hold data; validate owns what is in them and
// flags anything the manifest does not list. Other top-level files (a
// report.html, a user's notes) are none of its business.
var dataDirs = []string{"sft", "dpo", "blueprints", "rejected", "domain"}

// Names of the sharded files a run writes. The index and count are part
// of the name so that loaders and people can tell a missing shard.
var (
	parquetName = regexp.MustCompile(`^([A-Za-z0-9_]+)-([0-9]{5})-of-([0-9]{5})\.parquet$`)
	jsonlName   = regexp.MustCompile(`^([A-Za-z0-9_]+)-([0-9]{5})-of-([0-9]{5})\.jsonl\.gz$`)
	sha256Hex   = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// Kinds of release file, from where they live.
const (
	kindSFT         = "sft"
	kindDPO         = "dpo"
	kindBlueprints  = "blueprints"
	kindRejected    = "rejected"
	kindDPOFailures = "dpo_failures"
	kindDuplicates  = "duplicates"
	kindDomain      = "domain"
	kindCard        = "card"
)

// entry is a manifest file entry that is safe to open: its path stays
// inside the release and its name says what it holds.
type entry struct {
	release.FileEntry
	kind  string
	split string // from the file name; "" for files without a split
	shard int    // index in the name
	of    int    // shard count in the name
}

// manifestDoc is a parsed manifest: the manifest itself, the entries that
// can be checked, and what is wrong with it.
type manifestDoc struct {
	m        *release.Manifest
	entries  []entry
	problems []manifestProblem
}

type manifestProblem struct {
	check, reason string
}

// parseManifest decodes manifest.json and checks its structure. It never
// trusts a path: an entry whose path could leave the release folder, or
// that names no file a release can hold, is reported and left out of
// entries, so nothing later opens it.
func parseManifest(raw []byte) (*manifestDoc, error) {
	var m release.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("not a valid manifest: %w", err)
	}
	doc := &manifestDoc{m: &m}
	bad := func(check, format string, args ...any) {
		doc.problems = append(doc.problems, manifestProblem{check, fmt.Sprintf(format, args...)})
	}
	if m.Domain.Name == "" {
		bad("manifest", "domain.name is empty")
	}
	c := m.Counts
	for _, n := range []struct {
		name string
		v    int
	}{{"blueprints", c.Blueprints}, {"simulated", c.Simulated}, {"verified", c.Verified}, {"rejected", c.Rejected}, {"sft_rows", c.SFTRows}, {"dpo_pairs", c.DPOPairs}} {
		if n.v < 0 {
			bad("manifest", "counts.%s is negative (%d)", n.name, n.v)
		}
	}
	if _, err := maxTurns(&m); err != nil {
		bad("manifest", "%v", err)
	}
	seen := map[string]bool{}
	for i, f := range m.Files {
		if seen[f.Path] {
			bad("manifest", "files[%d]: %q is listed twice", i, f.Path)
			continue
		}
		seen[f.Path] = true
		e, err := classify(f)
		if err != nil {
			bad("manifest", "files[%d]: %v", i, err)
			continue
		}
		doc.entries = append(doc.entries, e)
	}
	checkShardCounts(doc, bad)
	return doc, nil
}

// classify checks one entry and says what kind of file it is.
func classify(f release.FileEntry) (entry, error) {
	e := entry{FileEntry: f}
	if err := safeRel(f.Path); err != nil {
		return e, err
	}
	if !sha256Hex.MatchString(f.SHA256) {
		return e, fmt.Errorf("%s: sha256 %q is not 64 lowercase hex digits", f.Path, f.SHA256)
	}
	if f.Bytes < 0 || f.Rows < 0 {
		return e, fmt.Errorf("%s: negative size (%d bytes, %d rows)", f.Path, f.Bytes, f.Rows)
	}
	dir, name, nested := strings.Cut(f.Path, "/")
	switch {
	case !nested && dir == "README.md":
		e.kind = kindCard
		return e, nil
	case !nested:
		return e, fmt.Errorf("%s: not a file a release holds at its top level", f.Path)
	case dir == kindDomain:
		e.kind = kindDomain
		return e, nil
	case f.Path == "rejected/duplicates.jsonl.gz":
		// Written once per release, after the shards: it has no shard
		// number.
		e.kind = kindDuplicates
		return e, nil
	}
	var parts []string
	switch dir {
	case kindSFT, kindDPO:
		parts = parquetName.FindStringSubmatch(name)
	case kindBlueprints, kindRejected:
		parts = jsonlName.FindStringSubmatch(name)
	default:
		return e, fmt.Errorf("%s: not in one of the release folders (%s)", f.Path, strings.Join(dataDirs, ", "))
	}
	if parts == nil {
		return e, fmt.Errorf("%s: not a shard name of the form NAME-00000-of-00001 with the extension %s uses", f.Path, dir)
	}
	e.kind, e.split = dir, parts[1]
	e.shard, _ = strconv.Atoi(parts[2])
	e.of, _ = strconv.Atoi(parts[3])
	if dir == kindRejected {
		switch parts[1] {
		case kindRejected, kindDPOFailures, kindDuplicates:
		default:
			return e, fmt.Errorf("%s: rejected/ holds rejected-*, dpo_failures-* and duplicates files only", f.Path)
		}
		e.kind, e.split = parts[1], ""
	}
	if e.shard >= e.of {
		return e, fmt.Errorf("%s: shard %d of %d", f.Path, e.shard, e.of)
	}
	if e.split != "" && f.Split != "" && f.Split != e.split {
		return e, fmt.Errorf("%s: listed with split %q, its name says %q", f.Path, f.Split, e.split)
	}
	return e, nil
}

// safeRel accepts a clean, relative, slash-separated path with no hidden
// or parent elements: the only kind a release lists.
func safeRel(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("empty path")
	case strings.ContainsAny(p, "\\\x00"):
		return fmt.Errorf("%q: paths are slash-separated and hold no NUL", p)
	case path.IsAbs(p) || path.Clean(p) != p:
		return fmt.Errorf("%q is not a clean relative path", p)
	}
	for _, el := range strings.Split(p, "/") {
		if strings.HasPrefix(el, ".") {
			return fmt.Errorf("%q has a hidden or parent element %q", p, el)
		}
	}
	return nil
}

// checkShardCounts flags shard sets with gaps: NAME-00001-of-00003
// without its siblings means a file went missing from the listing too.
func checkShardCounts(doc *manifestDoc, bad func(check, format string, args ...any)) {
	type set struct{ kind, split string }
	got := map[set][]entry{}
	for _, e := range doc.entries {
		if e.of > 0 {
			k := set{e.kind, e.split}
			got[k] = append(got[k], e)
		}
	}
	for k, es := range got {
		have := map[int]bool{}
		for _, e := range es {
			if e.of != es[0].of {
				bad("manifest", "%s: shard count %d, but %s says %d", e.Path, e.of, es[0].Path, es[0].of)
			}
			have[e.shard] = true
		}
		if missing := es[0].of - len(have); missing > 0 {
			var first []int
			for i := 0; i < es[0].of && len(first) < 3; i++ {
				if !have[i] {
					first = append(first, i)
				}
			}
			bad("manifest", "%s %s: %d of %d shards are not listed (first: %v)", k.kind, k.split, missing, es[0].of, first)
		}
	}
}

// defaultMaxTurns is synth run's default, for manifests that predate
// the key.
const defaultMaxTurns = 60

// maxTurns reads config.max_turns, which the DPO re-simulation needs to
// replay a flawed dialogue exactly.
func maxTurns(m *release.Manifest) (int, error) {
	v, ok := m.Config["max_turns"]
	if !ok {
		return defaultMaxTurns, nil
	}
	f, ok := v.(float64)
	if !ok || f < 1 || f > 1e6 || f != float64(int(f)) {
		return 0, fmt.Errorf("config.max_turns %v is not a positive integer", v)
	}
	return int(f), nil
}
