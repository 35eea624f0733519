package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/internal/testtree"
	"github.com/synth-data/synth/release"
)

// interrupted leaves cfg.Out as a killed run does: some chunks finished,
// no release.
func interrupted(t *testing.T, cfg Config, stopAt int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Run(ctx, cfg, progressFunc(func(done, _, _ int) {
		if done == stopAt {
			cancel()
		}
	}))
	if err == nil {
		t.Fatal("the run was not interrupted")
	}
}

// firstChunkFile is a file of chunk 0 of the kind given.
func firstChunkFile(t *testing.T, work, kind string) string {
	t.Helper()
	s, err := release.ReadSummary(filepath.Join(work, "chunks", chunkName(0)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Files {
		if f.Kind == kind {
			return filepath.Join(work, "chunks", chunkName(0), filepath.FromSlash(f.Name))
		}
	}
	t.Fatalf("chunk 0 has no %s file", kind)
	return ""
}

// TestDamagedChunksAreRedone: a finished chunk whose files were changed
// or whose summary is gone is produced again on resume, never published
// with the sha256 it had; the release equals an uninterrupted one.
func TestDamagedChunksAreRedone(t *testing.T) {
	ref := smallConfig(t, 300/shrink())
	ref.ChunkSize = 100 / shrink()
	if _, err := Run(context.Background(), ref, nil); err != nil {
		t.Fatal(err)
	}
	want := testtree.Hashes(t, ref.Out)
	damage := map[string]func(t *testing.T, work string){
		"flipped bytes": func(t *testing.T, work string) {
			p := firstChunkFile(t, work, "sft")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0xff
			os.WriteFile(p, b, 0o644)
		},
		"truncated": func(t *testing.T, work string) {
			p := firstChunkFile(t, work, "blueprints")
			st, _ := os.Stat(p)
			os.Truncate(p, st.Size()/2)
		},
		"no summary": func(t *testing.T, work string) {
			os.Remove(filepath.Join(work, "chunks", chunkName(0), "summary.json"))
		},
		"damaged signatures": func(t *testing.T, work string) {
			os.WriteFile(filepath.Join(work, "chunks", chunkName(0), sigFileName), []byte("junk"), 0o644)
		},
	}
	for name, fn := range damage {
		t.Run(name, func(t *testing.T) {
			cfg := ref
			cfg.Out = filepath.Join(t.TempDir(), "out")
			interrupted(t, cfg, 150/shrink())
			fn(t, filepath.Join(cfg.Out, workDirName))
			res, err := Run(context.Background(), cfg, nil)
			if err != nil {
				t.Fatalf("the rerun: %v", err)
			}
			if len(res.Redone) != 1 || !strings.Contains(res.Redone[0], "chunk 0") {
				t.Errorf("Redone = %q, want chunk 0", res.Redone)
			}
			assertSameTree(t, want, testtree.Hashes(t, cfg.Out), "release after a damaged chunk")
		})
	}
}

// TestMergeRefusesDamagedChunk names the damaged file of a shard.
func TestMergeRefusesDamagedChunk(t *testing.T) {
	root := t.TempDir()
	var outs []string
	for i := range 2 {
		cfg := smallConfig(t, 120)
		cfg.ChunkSize = 60
		cfg.Out, cfg.Shard = filepath.Join(root, fmt.Sprint("shard-", i)), fmt.Sprintf("%d/2", i)
		if _, err := Run(context.Background(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, cfg.Out)
	}
	p := firstChunkFile(t, filepath.Join(outs[0], workDirName), "sft")
	st, _ := os.Stat(p)
	os.Truncate(p, st.Size()-10)
	dir := filepath.Join(root, "merged")
	_, err := Merge(outs, dir, false)
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("merge of a truncated chunk: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
		t.Error("a manifest was written")
	}
}

// TestOutLock: a second run on an out dir another run holds is refused
// with the holder's pid, and changes nothing.
func TestOutLock(t *testing.T) {
	cfg := smallConfig(t, 50)
	release, err := lockOut("--out", cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), cfg, nil)
	want := fmt.Sprintf("another synth run (pid %d) is writing %s", os.Getpid(), cfg.Out)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a run on a locked out dir: %v", err)
	}
	release()
	if _, err := os.Stat(cfg.Out); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(cfg.Out, workDirName)); len(entries) != 0 {
		t.Errorf("the lock left %d files in the work dir", len(entries))
	}
	if _, err := Run(context.Background(), cfg, nil); err != nil {
		t.Fatalf("after the lock was released: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, workDirName)); err == nil {
		t.Error("the finished release kept its work dir")
	}
}
