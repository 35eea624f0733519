package openapi_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// TestPagedListsReadWhole: an imported list tool gives 20 records a page.
// "The most recent attempt" is about all of them (review2 N1: the
// ground truth picked the best of page 1 in 5/27 DO superlatives), so
// the model knows every listed key, and a task that describes a record
// of a paged collection reads every page and acts on the record that
// the description singles out among all records.
func TestPagedListsReadWhole(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	tests := []struct {
		file string
		// paged: some list has pages (next_page); cursor: some list
		// takes only a limit and a cursor, so it shows part of its
		// records and none of them may be described.
		paged, cursor bool
	}{
		{"twilio-verify-v2-3.0.json", true, false},
		{"discord-3.1.json", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			pagedListsReadWhole(t, tt.file, tt.paged, tt.cursor)
		})
	}
}

func pagedListsReadWhole(t *testing.T, file string, wantPaged, wantCursor bool) {
	m, dir := realModel(t, file)
	ctx := context.Background()
	// paged: the lists of more than 20 records that show them all.
	paged, partial := map[string]*model.CollModel{}, map[string]bool{}
	for name, cm := range m.Colls {
		if cm.List == nil || cm.List.Param != "" {
			continue
		}
		n := len(m.Base.Keys(name))
		if n <= 20 {
			continue
		}
		// A list shows every record, on one page (no limit) or more, or,
		// read by a cursor it cannot turn, only its first page.
		switch got := len(m.AllKeys(name)); {
		case got == n:
			paged[name] = cm
		case m.ListPages(name, "") == 1:
			partial[name] = true
		default:
			t.Errorf("%s: its list shows %d of %d records on %d pages", name, got, n, m.ListPages(name, ""))
		}
	}
	if wantPaged && !slices.ContainsFunc(slices.Collect(maps.Keys(paged)), func(name string) bool { return m.ListPages(name, "") > 1 }) {
		t.Fatalf("no list of %s has more records than a page", file)
	}
	if wantCursor && len(partial) == 0 {
		t.Fatalf("no list of %s shows part of its records", file)
	}

	cfg := pipeline.Defaults()
	cfg.Domain, cfg.N, cfg.Seed, cfg.Workers = dir, 60, 3, 2
	cfg.Out = filepath.Join(t.TempDir(), "release")
	if _, err := pipeline.Run(ctx, cfg, nil); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cfg.Out, "blueprints", "*.jsonl.gz"))
	described := 0
	for _, f := range files {
		for _, bp := range readBlueprints(t, f) {
			for gi, g := range bp.Goals {
				if g.Target.Pick == "" && len(g.Target.Where) == 0 {
					continue
				}
				if partial[g.Target.Collection] {
					t.Errorf("%s goal %d: %q is described, but the list shows only part of the records", bp.ID, gi, g.Target.Label)
				}
				cm := paged[g.Target.Collection]
				if cm == nil {
					continue
				}
				described++
				reads, writes := 0, ""
				for _, a := range bp.Actions {
					if a.Tool == cm.List.Tool {
						reads++
					}
					if a.Goal == gi && a.Kind == "write" {
						writes += string(a.Arguments)
					}
				}
				if want := m.ListPages(cm.Name, ""); reads < want {
					t.Errorf("%s goal %d (%s): %d reads of %s, its list has %d pages", bp.ID, gi, g.Target.Label, reads, cm.List.Tool, want)
				}
				var recs []map[string]any
				for _, k := range m.Base.Keys(cm.Name) {
					v, _ := m.Base.Get(cm.Name, k)
					r, _ := v.(map[string]any)
					recs = append(recs, r)
				}
				i, err := tools.ResolveKey(g.Target, recs, cm.Key)
				if err != nil {
					t.Errorf("%s goal %d: %q singles out no record of all %d: %v", bp.ID, gi, g.Target.Label, len(recs), err)
					continue
				}
				if key := tools.Text(recs[i][cm.Key]); writes != "" && !strings.Contains(writes, key) {
					t.Errorf("%s goal %d: %q is %s %s among all records; the ground truth writes %s", bp.ID, gi, g.Target.Label, cm.Noun, key, writes)
				}
			}
		}
	}
	t.Logf("%d described targets in %d collections of more than a page", described, len(paged))
	if wantPaged && described == 0 {
		t.Error("no task describes a record of a paged collection")
	}
}

func readBlueprints(t *testing.T, file string) []record.Blueprint {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []record.Blueprint
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var bp record.Blueprint
		if err := json.Unmarshal(sc.Bytes(), &bp); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, bp)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
