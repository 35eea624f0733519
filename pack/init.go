package pack

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
)

// template is the pack Init writes: a small helpdesk that runs as it is.
// Files ending in .tmpl are rendered with the pack's name.
//
//go:embed template
var templateFS embed.FS

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// Init scaffolds a runnable pack in dir, which must be absent or empty.
// An empty name derives one from the folder's name.
func Init(dir, name string) error {
	if name == "" {
		name = strings.ToLower(filepath.Base(filepath.Clean(dir)))
	}
	if !nameRE.MatchString(name) {
		return fmt.Errorf("pack name %q: use lower case letters, digits, - and _, starting with a letter (--name NAME)", name)
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("init %s: %w", dir, err)
	case len(entries) > 0:
		return fmt.Errorf("init %s: the folder is not empty; give a new or empty folder", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("init %s: %w", dir, err)
	}
	sub, err := fs.Sub(templateFS, "template")
	if err != nil {
		return err
	}
	return fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		out := p
		if strings.HasSuffix(p, ".tmpl") {
			out = strings.TrimSuffix(p, ".tmpl")
			t, err := template.New(p).Option("missingkey=error").Parse(string(data))
			if err != nil {
				return fmt.Errorf("template %s: %w", p, err)
			}
			var buf bytes.Buffer
			if err := t.Execute(&buf, struct{ Name string }{name}); err != nil {
				return fmt.Errorf("template %s: %w", p, err)
			}
			data = buf.Bytes()
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(out)), data, 0o644); err != nil {
			return fmt.Errorf("init %s: %w", dir, err)
		}
		return nil
	})
}
