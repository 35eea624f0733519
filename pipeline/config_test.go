package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadFile(t *testing.T) {
	cases := []struct {
		name, yaml, want string
		check            func(Config) bool
	}{
		{"keys", "n: 12\nseed: 4\nwrites: 1-2\nreads: '3-5'\nbehaviors: [minimal, typos]\nwrite_weights: [1, 3]\n", "",
			func(c Config) bool {
				return c.N == 12 && c.Seed == 4 && c.Writes == "1-2" && c.Reads == "3-5" && len(c.Behaviors) == 2 && c.WriteWeights[1] == 3
			}},
		{"empty file keeps defaults", "", "", func(c Config) bool { return c.N == Defaults().N }},
		{"comment only", "# nothing\n", "", func(c Config) bool { return c.N == Defaults().N }},
		{"unknown key", "n: 3\nworkerz: 2\n", `unknown field "workerz"`, nil},
		{"wrong type", "n: many\n", "Config.n", nil},
		{"not a mapping", "- n: 3\n", "want a mapping", nil},
		{"malformed", "n: [1,\n", "not valid YAML", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := Defaults()
			err := LoadFile(path, &cfg)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
					t.Fatalf("error %v, want one naming %s and containing %q", err, path, tc.want)
				}
				return
			}
			if err != nil || !tc.check(cfg) {
				t.Fatalf("err %v, config %+v", err, cfg)
			}
		})
	}
}

func FuzzLoadFile(f *testing.F) {
	for _, s := range []string{"n: 3\n", "writes: 1-2\nreads: 2-3\n", "behaviors: [a]\n", "{", "- 1\n", "n: !!binary xx\n", "&a [*a]\n"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := Defaults()
		if err := LoadFile(path, &cfg); err != nil {
			return
		}
		_, _ = cfg.Spec() // must not panic on anything a file can hold
	})
}
