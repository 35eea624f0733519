package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/internal/testtree"
)

func assertSameTree(t *testing.T, want, got map[string]string, what string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("empty release")
	}
	for name, h := range want {
		if got[name] != h {
			t.Errorf("%s: %s differs", what, name)
		}
	}
	if len(want) != len(got) {
		t.Errorf("%s: %d files, want %d", what, len(got), len(want))
	}
}

func TestResumeIsIdentical(t *testing.T) {
	f := shrink()
	ref := smallConfig(t, 600/f)
	ref.ChunkSize = 100 / f
	ref.DPO = true
	if _, err := Run(context.Background(), ref, nil); err != nil {
		t.Fatal(err)
	}
	want := testtree.Hashes(t, ref.Out)

	cfg := ref
	cfg.Out = filepath.Join(t.TempDir(), "resumed")
	// Interrupt twice at different points, then let it finish.
	for _, stopAt := range []int{150 / f, 420 / f} {
		ctx, cancel := context.WithCancel(context.Background())
		before := doneBefore(t, cfg)
		_, err := Run(ctx, cfg, progressFunc(func(done, _, _ int) {
			if done == stopAt-before {
				cancel()
			}
		}))
		cancel()
		if err == nil || !strings.Contains(err.Error(), "rerun the same command") {
			t.Fatalf("interrupted run: %v", err)
		}
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed == 0 {
		t.Error("the final run should have found finished chunks")
	}
	assertSameTree(t, want, testtree.Hashes(t, cfg.Out), "resumed release")
}

// doneBefore counts blueprints in chunks already finished in cfg.Out.
func doneBefore(t *testing.T, cfg Config) int {
	done, err := doneChunks(filepath.Join(cfg.Out, workDirName))
	if err != nil {
		t.Fatal(err)
	}
	return len(done) * cfg.ChunkSize
}

func TestShardsMergeIdentical(t *testing.T) {
	ref := smallConfig(t, 500/shrink())
	ref.ChunkSize = 60 / shrink()
	if _, err := Run(context.Background(), ref, nil); err != nil {
		t.Fatal(err)
	}
	want := testtree.Hashes(t, ref.Out)
	root := t.TempDir()
	var outs []string
	for i := 0; i < 4; i++ {
		cfg := ref
		cfg.Out = filepath.Join(root, fmt.Sprintf("shard-%d", i))
		cfg.Shard = fmt.Sprintf("%d/4", i)
		cfg.Workers = 1 + i%3
		res, err := Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Manifest != nil {
			t.Fatal("a shard run must not finalize a release")
		}
		outs = append(outs, cfg.Out)
	}
	if _, err := Merge(outs[:3], filepath.Join(root, "partial"), false); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("merging 3 of 4 shards: %v", err)
	}
	merged := filepath.Join(root, "merged")
	if _, err := Merge(outs, merged, false); err != nil {
		t.Fatal(err)
	}
	assertSameTree(t, want, testtree.Hashes(t, merged), "merged release")

	other := ref
	other.Out, other.Seed, other.Shard = filepath.Join(root, "other"), 9, "0/4"
	if _, err := Run(context.Background(), other, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(append(outs, other.Out), filepath.Join(root, "mixed"), false); err == nil || !strings.Contains(err.Error(), "another config") {
		t.Fatalf("merging shards of different configs: %v", err)
	}
}

func TestParseShard(t *testing.T) {
	for _, s := range []string{"", "0/1", "3/4"} {
		if _, _, err := ParseShard(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"4/4", "-1/2", "1", "a/b", "1/0", "01/4"} {
		if _, _, err := ParseShard(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// TestFinalizeInterrupted: a finalisation that fails after placing some
// files (here: README.md cannot be written) leaves a state that the same
// command finishes into the same release.
func TestFinalizeInterrupted(t *testing.T) {
	ref := smallConfig(t, 120)
	ref.ChunkSize = 40
	if _, err := Run(context.Background(), ref, nil); err != nil {
		t.Fatal(err)
	}
	want := testtree.Hashes(t, ref.Out)

	cfg := ref
	cfg.Out = filepath.Join(t.TempDir(), "again")
	// A directory where README.md goes makes the card's rename fail.
	blocker := filepath.Join(cfg.Out, "README.md", "x")
	if err := os.MkdirAll(blocker, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg.Force = true // the blocker makes the folder non-empty
	if _, err := Run(context.Background(), cfg, nil); err == nil {
		t.Fatal("finalisation should have failed on README.md")
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, "manifest.json")); err == nil {
		t.Fatal("a failed finalisation wrote the manifest")
	}
	if err := os.RemoveAll(filepath.Join(cfg.Out, "README.md")); err != nil {
		t.Fatal(err)
	}
	cfg.Force = false
	if _, err := Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	assertSameTree(t, want, testtree.Hashes(t, cfg.Out), "release finished after a failed finalisation")
}
