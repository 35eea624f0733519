package export

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestZZSlow(t *testing.T) {
	valid := validSFTFile(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 9))
	for iter := 0; iter < 20000; iter++ {
		data := append([]byte(nil), valid...)
		for k := 0; k < 1+rng.IntN(8); k++ {
			if rng.IntN(2) == 0 {
				data[len(data)-1-rng.IntN(min(len(data), 3000))] = byte(rng.UintN(256))
				continue
			}
			data[rng.IntN(len(data))] = byte(rng.UintN(256))
		}
		path := filepath.Join(dir, "x.parquet")
		os.WriteFile(path, data, 0o644)
		start := time.Now()
		_, err := ReadSFT(path)
		if d := time.Since(start); d > 500*time.Millisecond {
			os.WriteFile("/tmp/slow.parquet", data, 0o644)
			t.Fatalf("iter %d took %v: %v", iter, d, err)
		}
	}
}
