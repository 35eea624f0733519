package pipeline_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/emulate"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/pipeline"
)

// An llm release against synth emulate: its rows and its failed trials
// carry labels that validate recomputes, and the manifest's Gold Action
// Recall for the llm engine is the share its rows' labels give.
func TestHTTPLabels(t *testing.T) {
	opts := emulate.DefaultOptions()
	opts.MistakeRate = 0.3
	srv := emulator(t, opts)
	cfg := httpConfig(t, srv, pipeline.EngineLLM, 30)
	res, err := pipeline.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, cfg.Out)
	m := res.Manifest
	if m.Stats == nil || m.Stats.Credit == nil {
		t.Fatal("no credit stats in the manifest")
	}
	gold := m.Stats.Credit.Gold["llm"]
	if gold == nil || gold.Turns == 0 {
		t.Fatalf("no gold action recall for the llm engine: %+v", m.Stats.Credit.Gold)
	}
	matched, turns := 0, 0
	for _, f := range m.Files {
		p := filepath.Join(cfg.Out, f.Path)
		switch {
		case strings.HasPrefix(f.Path, "sft/"):
			rows, err := export.ReadSFT(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				var l credit.Labels
				if err := json.Unmarshal(r.Labels, &l); err != nil {
					t.Fatalf("row %s: %v", r.ID, err)
				}
				a, n := credit.GoldRecall(l)
				matched, turns = matched+a, turns+n
			}
		case strings.HasPrefix(f.Path, "rejected/rejected-"):
			lines := jsonLines(t, p)
			if len(lines) == 0 {
				t.Fatal("no failed trial at mistake rate 0.3")
			}
			for _, line := range lines {
				var rec struct {
					Labels *credit.Labels `json:"labels"`
				}
				if err := json.Unmarshal(line, &rec); err != nil || rec.Labels == nil {
					t.Fatalf("rejected record without labels (%v): %.200s", err, line)
				}
				if l := rec.Labels; l.Outcome == nil || *l.Outcome != 0 || l.Pivotal < 0 {
					t.Errorf("failed trial labelled outcome %v pivotal %d", l.Outcome, l.Pivotal)
				}
			}
		}
	}
	if matched != gold.Matched || turns != gold.Turns {
		t.Errorf("manifest: %d of %d turns match their gold class, the rows' labels: %d of %d", gold.Matched, gold.Turns, matched, turns)
	}
	t.Logf("gold action recall of the emulated llm agent: %.4f (%d of %d turns)", gold.Recall, gold.Matched, gold.Turns)
}
