package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/emulate"
	"github.com/synth-data/synth/release"
)

// The API key goes from the environment to the endpoint and nowhere
// else: not into any file of the release, not into the logs.
func TestRunLLMNoSecret(t *testing.T) {
	const secret = "sk-synth-test-SECRET-1234"
	t.Setenv("SYNTH_TEST_KEY", secret)
	s, err := emulate.New(emulate.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "rel")
	cache := filepath.Join(dir, "cache")
	code, stdout, stderr := synth(t, "run", "--engine", "llm", "--base-url", srv.URL+"/v1", "--model", "emulated", "--model-judge", "judge-model",
		"--api-key-env", "SYNTH_TEST_KEY", "--llm-cache", cache, "--max-concurrency", "8", "--judges", "2",
		"-n", "12", "--seed", "5", "--out", out, "--log-format", "json")
	if code != 0 {
		t.Fatalf("run exit %d:\n%s\n%s", code, stdout, stderr)
	}
	for name, text := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if strings.Contains(text, secret) {
			t.Errorf("the key is in %s", name)
		}
	}
	if !strings.Contains(stdout, "LLM:") || !strings.Contains(stderr, `"llm_billed"`) {
		t.Errorf("no LLM billing in the summary:\n%s\n%s", stdout, stderr)
	}
	files := 0
	for _, root := range []string{out, cache} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			files++
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if strings.Contains(string(raw), secret) {
				t.Errorf("the key is in %s", p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 10 {
		t.Fatalf("only %d files written", files)
	}
	m, err := release.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(m.Config)
	for _, want := range []string{`"engine":"llm"`, `"judge-model"`, `"emulated"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("config %s lacks %s", raw, want)
		}
	}
	for _, not := range []string{"SYNTH_TEST_KEY", srv.URL, cache} {
		if strings.Contains(string(raw), not) {
			t.Errorf("config %s records %q", raw, not)
		}
	}
	if code, stdout, _ := synth(t, "validate", out); code != 0 {
		t.Errorf("validate exit %d:\n%s", code, stdout)
	}
}

func TestRunLLMFlagErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rel")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "llm"}, "llm.base_url"},
		{[]string{"--engine", "hybrid", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--user", "embedded"}, "--user embedded"},
		{[]string{"--engine", "llm", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--trials", "0"}, "--trials"},
		{[]string{"--engine", "gpt"}, "want embedded, llm or hybrid"},
	}
	for _, tc := range cases {
		code, _, stderr := synth(t, append([]string{"run", "-n", "3", "--out", out, "--quiet"}, tc.args...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
}
