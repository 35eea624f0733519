package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/openapi"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
)

var calledRE = regexp.MustCompile(`the talk ([A-Z][^()]*) \($`)

var uuidIn = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// The proposals of a pack whose records are keyed by UUIDs name a
// record by its name, its key once after it in parentheses ("the talk
// Silver Island (4daf…)"), never "talk 4daf…"; the descriptions
// customers ask for vary, the spec's one example among many; and every
// dialogue verifies.
func TestImportedTalk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pack")
	if _, err := openapi.ImportFile(context.Background(), filepath.Join("testdata", "prose", "events.yaml"), dir, openapi.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.Defaults()
	cfg.Domain, cfg.N, cfg.Seed, cfg.Workers = dir, 60, 3, 1
	cfg.Out = filepath.Join(t.TempDir(), "release")
	res, err := pipeline.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Manifest.Counts; c.Verified != c.Blueprints {
		t.Errorf("%d of %d dialogues verified (rejections %v)", c.Verified, c.Blueprints, res.Manifest.Failures)
	}
	var db map[string]map[string]map[string]any
	raw, err := os.ReadFile(filepath.Join(dir, "db.json"))
	if err != nil || json.Unmarshal(raw, &db) != nil {
		t.Fatalf("db.json: %v", err)
	}
	names := map[string]bool{}
	for _, r := range db["talks"] {
		names[fmt.Sprint(r["name"])] = true
	}
	files, _ := filepath.Glob(filepath.Join(cfg.Out, "sft", "*.parquet"))
	named, bare := 0, 0
	descs := map[string]int{}
	total := 0
	for _, f := range files {
		rows, err := export.ReadSFT(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			for i, m := range r.Messages {
				if m.Role != "assistant" {
					continue
				}
				// A proposal: the customer's yes and a write follow it.
				proposal := i+2 < len(r.Messages) && r.Messages[i+1].Role == "user" && slices.ContainsFunc(r.Messages[i+2].ToolCalls,
					func(c record.ToolCall) bool { return c.Function.Name == "updateTalk" })
				for _, loc := range uuidIn.FindAllStringIndex(m.Content, -1) {
					if !proposal {
						continue
					}
					before := m.Content[:loc[0]]
					switch sm := calledRE.FindStringSubmatch(before); {
					case sm != nil && !names[sm[1]]:
						t.Errorf("a talk named by what is not its name (%q): %q", sm[1], m.Content)
					case sm != nil:
						named++
					case regexp.MustCompile(`talk $`).MatchString(before):
						bare++
						if bare <= 3 {
							t.Errorf("a UUID read as the talk's name: %q", m.Content)
						}
					}
				}
				for _, c := range m.ToolCalls {
					var args map[string]any
					if json.Unmarshal([]byte(c.Function.Arguments), &args) != nil {
						continue
					}
					if d, ok := args["talkDescription"].(string); ok {
						descs[d]++
						total++
					}
				}
			}
		}
	}
	if named == 0 {
		t.Error("no proposal names a talk by its name with its key after it")
	}
	most := 0
	for _, n := range descs {
		most = max(most, n)
	}
	if total < 5 || most*3 > total {
		t.Errorf("%d talk descriptions written, the most common %d times; want several, none in a third of them", total, most)
	}
}
