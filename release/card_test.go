package release

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/engine"
	"go.yaml.in/yaml/v3"
)

var updateCard = flag.Bool("update-card", false, "rewrite release/testdata/card_front_matter.golden")

// frontMatter returns the card's YAML front matter, decoded, and its text.
func frontMatter(t *testing.T, card string) (map[string]any, string) {
	t.Helper()
	rest, ok := strings.CutPrefix(card, "---\n")
	if !ok {
		t.Fatalf("card does not start with front matter:\n%.200s", card)
	}
	fm, _, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		t.Fatalf("front matter is not closed:\n%.400s", card)
	}
	var m map[string]any
	dec := yaml.NewDecoder(strings.NewReader(fm))
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("front matter is not YAML: %v\n%s", err, fm)
	}
	return m, fm
}

// cardEngine is what an engine says of itself on the card (engine.Kind.Card).
var cardEngine = engine.Card{Name: "embedded engine", Pipeline: "simulated dialogues → verification → Parquet."}

func cardManifest(license string, sft, dpo int) *Manifest {
	m := &Manifest{
		SynthVersion: "0.4.0", Format: 2, Seed: 7,
		Config: map[string]any{"license": license, "engine": "embedded", "writes": "0-5", "reads": "2-7", "n": 10},
		Domain: DomainInfo{Name: "retail", Version: "1.0.0", Hash: "abcdef0123456789", StateHash: "0123456789abcdef"},
		Counts: Counts{SFTRows: sft},
	}
	if dpo > 0 {
		m.DPO = &engine.DPOStats{Pairs: dpo}
	}
	return m
}

var cardFiles = []FileEntry{
	{Path: "sft/train-00000-of-00001.parquet", Split: "train"},
	{Path: "sft/test-00000-of-00001.parquet", Split: "test"},
	{Path: "dpo/train-00000-of-00001.parquet", Split: "train"},
}

func TestCardFrontMatter(t *testing.T) {
	tests := []struct {
		name, license string
		sft, dpo      int
		wantLicense   string
		wantName      bool
		wantSize      string
	}{
		{"default other", "other", 200, 0, "other", true, "n<1K"},
		{"empty means other", "", 200, 0, "other", true, "n<1K"},
		{"spdx id", "apache-2.0", 200, 0, "apache-2.0", false, "n<1K"},
		{"size over sft and dpo rows", "mit", 900, 200, "mit", false, "1K<n<10K"},
		{"injected keys stay a value", "mit\nconfigs:\n- config_name: evil", 5, 0, "mit\nconfigs:\n- config_name: evil", false, "n<1K"},
		{"injected document end", "mit\n---\nlicense: x", 5, 0, "mit\n---\nlicense: x", false, "n<1K"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			card := Card(cardManifest(tt.license, tt.sft, tt.dpo), cardFiles, cardEngine)
			m, fm := frontMatter(t, card)
			if got := m["license"]; got != tt.wantLicense {
				t.Errorf("license = %q, want %q", got, tt.wantLicense)
			}
			if _, ok := m["license_name"]; ok != tt.wantName {
				t.Errorf("license_name present = %v, want %v", ok, tt.wantName)
			}
			if tt.wantName && (m["license_name"] != LicenseOtherName || m["license_link"] != LicenseOtherLink) {
				t.Errorf("license_name/link = %v / %v", m["license_name"], m["license_link"])
			}
			if n := strings.Count(fm, "\nconfigs:"); n != 1 {
				t.Errorf("%d top-level configs keys, want 1:\n%s", n, fm)
			}
			cfgs, _ := m["configs"].([]any)
			if len(cfgs) != 2 {
				t.Errorf("configs = %v, want sft and dpo", m["configs"])
			}
			for _, key := range []string{"annotations_creators", "language_creators"} {
				if v, _ := m[key].([]any); len(v) != 1 || v[0] != "machine-generated" {
					t.Errorf("%s = %v, want [machine-generated]", key, m[key])
				}
			}
			if v, _ := m["size_categories"].([]any); len(v) != 1 || v[0] != tt.wantSize {
				t.Errorf("size_categories = %v, want [%s]", m["size_categories"], tt.wantSize)
			}
			if !strings.Contains(card, "## License\n") {
				t.Error("no License section (license_link points at it)")
			}
		})
	}
}

// TestCardFrontMatterGolden pins the whole front matter: configs, the
// datasets features (List(Json()) as "list: json") and the Hub keys.
func TestCardFrontMatterGolden(t *testing.T) {
	_, fm := frontMatter(t, Card(cardManifest("other", 200, 40), cardFiles, cardEngine))
	path := filepath.Join("testdata", "card_front_matter.golden")
	if *updateCard {
		if err := os.WriteFile(path, []byte(fm), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./release -run CardFrontMatterGolden -update-card)", err)
	}
	if fm != string(want) {
		t.Errorf("front matter differs from %s (rerun with -update-card if intended):\n%s", path, fm)
	}
}

// TestCardUnusedWrites: the card lists the writes no task uses, each
// with its reason in one table cell, and says nothing when all are used.
func TestCardUnusedWrites(t *testing.T) {
	m := cardManifest("mit", 200, 0)
	if card := Card(m, cardFiles, cardEngine); strings.Contains(card, "no task uses") {
		t.Errorf("a release using every write lists unused ones")
	}
	m.UnusedWrites = map[string]string{
		"send_certificate": "every trial failed",
		"bulk_edit":        "no source for required parameter \"body\" | array\nsee hints",
	}
	card := Card(m, cardFiles, cardEngine)
	for _, want := range []string{
		"### Write tools no task uses (2)",
		"| `bulk_edit` | no source for required parameter \"body\" \\| array see hints |\n| `send_certificate` | every trial failed |",
	} {
		if !strings.Contains(card, want) {
			t.Errorf("card lacks %q", want)
		}
	}
}

// TestCardSaysWhatTheEngineSays: the card's words about the engine are
// the engine's own (engine.Kind.Card), so release names no engine.
func TestCardSaysWhatTheEngineSays(t *testing.T) {
	eng := engine.Card{Name: "test engine of its own", Pipeline: "dialogues made some new way → verification → Parquet."}
	card := Card(cardManifest("other", 200, 0), cardFiles, eng)
	for _, want := range []string{"on its test engine of its own.", "→ dialogues made some new way → verification → Parquet.\n\n"} {
		if !strings.Contains(card, want) {
			t.Errorf("card lacks %q", want)
		}
	}
}
