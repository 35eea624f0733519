package export

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func FuzzZZ(f *testing.F) {
	valid := validSFTFile(f)
	f.Add(valid)
	for _, n := range []int{0, 4, 8, 100, len(valid) / 2, len(valid) - 8, len(valid) - 1} {
		f.Add(valid[:n])
	}
	dir := f.TempDir()
	os.MkdirAll("/tmp/slow", 0o755)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.parquet")
		os.WriteFile(path, data, 0o644)
		start := time.Now()
		ReadSFT(path)
		if d := time.Since(start); d > 300*time.Millisecond {
			os.WriteFile(fmt.Sprintf("/tmp/slow/%x-%dms.parquet", sha256.Sum256(data), d.Milliseconds()), data, 0o644)
		}
	})
}
