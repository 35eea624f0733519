package audit

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/release"
)

// makeRelease runs synth on the embedded engine, with DPO pairs, into a
// temporary folder.
func makeRelease(t testing.TB, n int) string {
	t.Helper()
	return makeReleaseWith(t, n, func(*pipeline.Config) {})
}

// makeReleaseWith is makeRelease with a config of the test's choosing.
func makeReleaseWith(t testing.TB, n int, configure func(*pipeline.Config)) string {
	t.Helper()
	cfg := pipeline.Defaults()
	cfg.N = n
	cfg.DPO = true
	cfg.Out = filepath.Join(t.TempDir(), "rel")
	configure(&cfg)
	if _, err := pipeline.Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	return cfg.Out
}

// copyRelease copies a release into a fresh temporary folder, so that a
// test can damage it.
func copyRelease(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "rel")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func readManifest(t testing.TB, dir string) *release.Manifest {
	t.Helper()
	m, err := release.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func writeManifest(t testing.TB, dir string, m *release.Manifest) {
	t.Helper()
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), append(raw, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// relist updates the manifest entry of a release file to the file as it
// is now, so that only the deeper checks can notice a change.
func relist(t testing.TB, dir, rel string, rows int64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	m := readManifest(t, dir)
	for i := range m.Files {
		if m.Files[i].Path == rel {
			m.Files[i].SHA256 = hex.EncodeToString(sum[:])
			m.Files[i].Bytes = int64(len(b))
			if rows >= 0 {
				m.Files[i].Rows = rows
			}
		}
	}
	writeManifest(t, dir, m)
}

// sftFile returns the path of the one SFT file of a split.
func sftFile(split string) string { return "sft/" + split + "-00000-of-00001.parquet" }

func dpoFile(split string) string { return "dpo/" + split + "-00000-of-00001.parquet" }

// rewriteSFT replaces the SFT file of a split with rows, written by
// synth's own writer, as a careful forger would.
func rewriteSFT(t testing.TB, dir, split string, rows []export.SFTRow) {
	t.Helper()
	scratch := t.TempDir()
	w, err := export.NewWriter(scratch, "sft", export.SFTSchema(), export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.WriteSFT(split, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	moveInto(t, filepath.Join(scratch, filepath.FromSlash(sftFile(split))), filepath.Join(dir, filepath.FromSlash(sftFile(split))))
}

func rewriteDPO(t testing.TB, dir, split string, rows []export.DPORow) {
	t.Helper()
	scratch := t.TempDir()
	w, err := export.NewWriter(scratch, "dpo", export.DPOSchema(), export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.WriteDPO(split, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	moveInto(t, filepath.Join(scratch, filepath.FromSlash(dpoFile(split))), filepath.Join(dir, filepath.FromSlash(dpoFile(split))))
}

func moveInto(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readSFT(t testing.TB, dir, split string) []export.SFTRow {
	t.Helper()
	rows, err := export.ReadSFT(filepath.Join(dir, filepath.FromSlash(sftFile(split))))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func readDPO(t testing.TB, dir, split string) []export.DPORow {
	t.Helper()
	rows, err := export.ReadDPO(filepath.Join(dir, filepath.FromSlash(dpoFile(split))))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func readGzipLines(t testing.TB, path string) []string {
	t.Helper()
	var lines []string
	if _, err := readJSONL(path, math.MaxInt64, func(_ int, raw []byte) { lines = append(lines, strings.TrimSuffix(string(raw), "\n")) }); err != nil {
		t.Fatal(err)
	}
	return lines
}

func writeGzipLines(t testing.TB, path string, lines []string) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	for _, l := range lines {
		zw.Write([]byte(l + "\n"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
