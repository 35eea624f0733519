package pipeline

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/synth-data/synth/audit"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

// validatorText is the jsonschema library's own phrasing of a failure
// ("/item_ids: got string, want array"), which no real API returns.
var validatorText = regexp.MustCompile(`got \w+, want|missing propert|additional propert|value must be|(^|\s)/\w*:`)

// Every pair of a DPO release shows its label in its rejected side (or
// is a mistake the customer caught at the proposal, or is made on the
// decision its mistake followed from, which synth validate holds to
// the dialogues), every side ends before the next customer turn, no
// rejected side carries validator text, a cut release holds no tool
// message in chosen or rejected, and each release passes synth validate.
func TestDPOLabelsShown(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	ctx := context.Background()
	for _, tc := range []struct{ domain, tools string }{
		{"retail", dpo.ToolsKeep},
		{"airline", dpo.ToolsKeep},
		{"retail", dpo.ToolsCut},
	} {
		t.Run(tc.domain+"/"+tc.tools, func(t *testing.T) {
			cfg := smallConfig(t, 200)
			cfg.Domain, cfg.DPO, cfg.DPOTools = tc.domain, true, tc.tools
			res, err := Run(ctx, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := res.Manifest
			d, err := domains.Load(tc.domain, cfg.Seed)
			if err != nil {
				t.Fatal(err)
			}
			sch, err := schemas.Compile()
			if err != nil {
				t.Fatal(err)
			}
			lc := dpo.NewLabelChecker(d, verify.ForDomain(d, sch))
			bps := readBlueprints(t, cfg.Out)
			for _, p := range readProofs(t, cfg.Out) {
				if p["evidence"] != nil {
					t.Errorf("%s: a pair made on a decision (evidence %v): its rows must show the label", p["pair_id"], p["evidence"])
				}
			}
			paths, _ := filepath.Glob(filepath.Join(cfg.Out, "dpo", "*.parquet"))
			pairs, shown, assistantOnly := map[string]int{}, map[string]int{}, 0
			for _, p := range paths {
				err := export.ScanDPO(p, func(r export.DPORow) error {
					pairs[r.Failure]++
					if export.AssistantOnly(&r) {
						assistantOnly++
					}
					for _, side := range [][]record.Message{r.Chosen, r.Rejected} {
						for i, msg := range side {
							if msg.Role == "user" {
								t.Errorf("%s: side message %d is a customer turn", r.ID, i)
							}
						}
					}
					// Every label, a caught mistake's included, is what the
					// rows show.
					if ok, why := lc.Shows(ctx, bps[r.BlueprintID], r.Failure, r.Prompt, r.Chosen, r.Rejected); ok {
						shown[r.Failure]++
					} else {
						t.Errorf("%s: the rejected side does not show %s: %s", r.ID, r.Failure, why)
					}
					for _, msg := range r.Rejected {
						if validatorText.MatchString(msg.Content) {
							t.Errorf("%s: the rejected side carries validator text: %q", r.ID, msg.Content)
						}
					}
					if tc.tools == dpo.ToolsCut {
						for _, side := range [][]record.Message{r.Chosen, r.Rejected} {
							for i, msg := range side {
								if msg.Role == "tool" {
									t.Errorf("%s: dpo_tools cut, but side message %d is a tool result", r.ID, i)
								}
							}
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(pairs) < 5 || m.DPO.Pairs == 0 {
				t.Fatalf("too few pairs to judge: %v", pairs)
			}
			for label, n := range pairs {
				t.Logf("%s: %d of %d pairs show their label", label, shown[label], n)
			}
			if m.DPO.AssistantOnly != assistantOnly {
				t.Errorf("manifest: %d pairs assistant-only; the rows hold %d", m.DPO.AssistantOnly, assistantOnly)
			}
			if tc.tools == dpo.ToolsCut && assistantOnly != m.DPO.Pairs {
				t.Errorf("dpo_tools cut: %d of %d pairs are assistant-only, want all (OpenAI takes them)", assistantOnly, m.DPO.Pairs)
			}
			if m.Config["dpo_tools"] != tc.tools {
				t.Errorf("manifest config dpo_tools = %v, want %s", m.Config["dpo_tools"], tc.tools)
			}
			v, err := (audit.Validator{}).Validate(ctx, cfg.Out)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range v.Defects {
				t.Errorf("validate: %s", d)
			}
		})
	}
}

// --dpo-tools keep is the default and leaves the fingerprint of a
// release made before the option; cut changes it.
func TestDPOToolsFingerprint(t *testing.T) {
	cfg := Defaults()
	keep := cfg.Fingerprint()
	cfg.DPOTools = ""
	if cfg.Fingerprint() != keep {
		t.Error("dpo_tools \"\" and keep fingerprint differently")
	}
	cfg.DPOTools = dpo.ToolsCut
	if cfg.Fingerprint() == keep {
		t.Error("dpo_tools cut has the fingerprint of keep")
	}
	cfg.DPOTools = "trim"
	if err := cfg.Check(); err == nil {
		t.Error("dpo_tools trim passes Check")
	}
}
