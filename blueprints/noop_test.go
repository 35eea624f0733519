package blueprints

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/internal/testpacks"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
)

// TestNoWriteThatChangesNothing: the policy of every domain forbids a
// write that changes nothing, so no task asks for one. A library whose
// renewal writes the loan back unchanged gets no renewal task, and says
// why.
func TestNoWriteThatChangesNothing(t *testing.T) {
	dir := t.TempDir()
	src := testpacks.Dir("library")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "handlers.star" {
			renew := `    l["renewals"] = l["renewals"] + 1` + "\n" + `    l["due_date"] = l["due_date"] + "+" + str(args["weeks"]) + "w"` + "\n"
			if !strings.Contains(string(raw), renew) {
				t.Fatal("the library's renew_loan changed: update this test")
			}
			raw = []byte(strings.Replace(string(raw), renew, "", 1))
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	p, err := pack.LoadDir(ctx, dir, 1, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.NewModel(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGeneric(m, Spec{Seed: 1, Writes: Range{1, 1}, Reads: Range{0, 7}, AdaptReads: true, Refusals: 0.2, Behaviors: allProfiles})
	if err != nil {
		t.Fatal(err)
	}
	if why := g.unusable["renew_loan"]; !strings.Contains(why, "changes nothing") {
		t.Errorf("renew_loan usable (%q), though it changes nothing", why)
	}
	for i := range 60 {
		bp, err := g.Generate(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range bp.Actions {
			if a.Kind == record.KindWrite && a.Tool == "renew_loan" {
				t.Fatalf("blueprint %d renews a loan: %s", i, a.Arguments)
			}
		}
	}
}
