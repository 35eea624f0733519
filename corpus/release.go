package corpus

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/release"
)

// errEnough stops a scan once the sample is full.
var errEnough = errors.New("sample full")

// Measure reads the first sample SFT rows of the release in dir (train,
// then validation, then test, each in file order; every row when sample
// is 0) and measures them.
func Measure(ctx context.Context, dir string, m *release.Manifest, sample int) (*Meter, error) {
	var files []release.FileEntry
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, "sft/") && strings.HasSuffix(f.Path, ".parquet") {
			files = append(files, f)
		}
	}
	rank := map[string]int{"train": 0, "validation": 1, "test": 2}
	slices.SortStableFunc(files, func(a, b release.FileEntry) int {
		if d := rank[a.Split] - rank[b.Split]; d != 0 {
			return d
		}
		return strings.Compare(a.Path, b.Path)
	})
	meter := NewMeter()
	for _, f := range files {
		err := export.ScanSFT(filepath.Join(dir, filepath.FromSlash(f.Path)), func(r export.SFTRow) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if sample > 0 && meter.counts.Dialogues >= sample {
				return errEnough
			}
			meter.Add(r.Messages, r.Kind)
			return nil
		})
		if errors.Is(err, errEnough) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	return meter, nil
}
