package serve

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/record"
)

// TestReadBlueprintsBounds: a release's blueprints file is read only
// while it keeps to its manifest: its listed rows, lines within
// limitio.Line, a regular file.
func TestReadBlueprintsBounds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(content))
		zw.Close()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	two := write("two.jsonl.gz", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n")
	long := write("long.jsonl.gz", "{\"id\":\""+strings.Repeat("x", limitio.Line)+"\"}\n")
	link := filepath.Join(dir, "link.jsonl.gz")
	if err := os.Symlink(two, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		rows int64
		want string // "" for no error
	}{
		{"as listed", two, 2, ""},
		{"more than listed", two, 1, "more than the 1 blueprints"},
		{"overlong line", long, 1, "blueprint 1"},
		{"link", link, 2, "not a regular file"},
	} {
		bps := map[string]*record.Blueprint{}
		err := readBlueprints(tc.path, tc.rows, bps)
		if tc.want == "" {
			if err != nil || len(bps) != 2 {
				t.Errorf("%s: %d blueprints, %v", tc.name, len(bps), err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}
