package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// trainerDocs are the pages that tell trainers how to load synth's rows.
func trainerDocs(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "docs", "trainers", "*.md"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no docs/trainers pages: %v", err)
	}
	pages := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		pages[abs] = string(b)
	}
	return pages
}

var (
	shBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")
	// relPath is a file of a release or an export the pages name.
	relPath = regexp.MustCompile(`\brel[\w-]*/[\w./*-]+\w`)
	// datasetName is a LLaMA-Factory dataset a page's config names.
	datasetName = regexp.MustCompile(`(?m)^dataset: (\S+)$`)
)

// TestTrainerDocsCommands runs every synth command of the trainer pages,
// as a user would paste them, and checks that every file the pages
// name exists afterwards and every LLaMA-Factory dataset they name is
// registered: a page cannot show a command or a path that does not work.
func TestTrainerDocsCommands(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	pages := trainerDocs(t)
	t.Chdir(t.TempDir())
	ran := map[string]bool{}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range pages {
			if !yield(k) {
				return
			}
		}
	}) {
		page := pages[name]
		for _, block := range shBlock.FindAllStringSubmatch(page, -1) {
			for _, line := range strings.Split(block[1], "\n") {
				if !strings.HasPrefix(line, "synth ") || ran[line] {
					continue
				}
				ran[line] = true
				args := strings.Fields(line)[1:]
				if args[0] == "run" {
					args = append(args, "--quiet")
				}
				if code, stdout, stderr := synth(t, args...); code != 0 {
					t.Fatalf("%s: %q exit %d:\n%s\n%s", filepath.Base(name), line, code, stdout, stderr)
				}
			}
		}
		paths := relPath.FindAllString(page, -1)
		if len(paths) == 0 {
			t.Errorf("%s names no file to load", filepath.Base(name))
		}
		for _, p := range paths {
			if m, _ := filepath.Glob(p); len(m) == 0 {
				t.Errorf("%s names %s, which its commands do not make", filepath.Base(name), p)
			}
		}
		for _, m := range datasetName.FindAllStringSubmatch(page, -1) {
			b, err := os.ReadFile(filepath.Join("rel-sharegpt", "dataset_info.json"))
			if err != nil {
				t.Fatal(err)
			}
			var info map[string]any
			if err := json.Unmarshal(b, &info); err != nil || info[m[1]] == nil {
				t.Errorf("%s names dataset %s, which dataset_info.json does not register (%v)", filepath.Base(name), m[1], err)
			}
		}
	}
	if len(ran) == 0 {
		t.Fatal("the trainer pages show no synth command")
	}
}

// TestTrainerDocsListTemplateExceptions: the TRL page lists exactly the
// templates the render check lets break a DPO prompt's prefix.
func TestTrainerDocsListTemplateExceptions(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "test", "interop", "prefix_exceptions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exceptions map[string]string
	if err := json.Unmarshal(b, &exceptions); err != nil {
		t.Fatal(err)
	}
	trl, err := os.ReadFile(filepath.Join("..", "..", "docs", "trainers", "trl.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(trl), "### Templates that cannot keep the prompt a prefix")
	if !ok {
		t.Fatal("docs/trainers/trl.md has no section on the templates that cannot keep the prefix")
	}
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([\\w.]+)` \\|").FindAllStringSubmatch(section, -1) {
		listed = append(listed, m[1])
	}
	var want []string
	for k := range exceptions {
		want = append(want, k)
	}
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("docs/trainers/trl.md lists %v; test/interop/prefix_exceptions.json allows %v", listed, want)
	}
}
