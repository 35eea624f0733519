//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadCommandsSeeDamage: every command that reads a release exits
// non-zero on a shard that is truncated, linked to /dev/zero or swapped
// for a fifo nobody writes to, naming it, and none waits on the fifo;
// inspect, which shows one row, checks the rest first.
func TestReadCommandsSeeDamage(t *testing.T) {
	good := makeRelease(t)
	damage := map[string]func(t *testing.T, shard string){
		"truncated": func(t *testing.T, shard string) {
			if err := os.Truncate(shard, 2000); err != nil {
				t.Fatal(err)
			}
		},
		"linked to /dev/zero": func(t *testing.T, shard string) {
			os.Remove(shard)
			if err := os.Symlink("/dev/zero", shard); err != nil {
				t.Fatal(err)
			}
		},
		"a fifo": func(t *testing.T, shard string) {
			os.Remove(shard)
			if err := syscall.Mkfifo(shard, 0o644); err != nil {
				t.Skipf("no fifos here: %v", err)
			}
		},
	}
	commands := [][]string{
		{"inspect"}, {"inspect", "--split", "test"}, {"stats"}, {"stats", "--json"}, {"stats", "--language"},
		{"export", "--format", "jsonl", "-o"}, {"report", "-o"}, {"validate"},
	}
	for name, spoil := range damage {
		t.Run(name, func(t *testing.T) {
			rel := filepath.Join(t.TempDir(), "rel")
			copyTree(t, good, rel)
			shard := filepath.Join(rel, "sft", "train-00000-of-00001.parquet")
			spoil(t, shard)
			for _, c := range commands {
				args := append([]string{c[0], rel}, c[1:]...)
				switch c[0] {
				case "export":
					args = append(args, filepath.Join(t.TempDir(), "x"))
				case "report":
					args = append(args, filepath.Join(t.TempDir(), "r.html"))
				}
				code, stdout, stderr := synth(t, args...)
				if code == 0 || !strings.Contains(stdout+stderr, "train-00000-of-00001.parquet") {
					t.Errorf("synth %s: exit %d, want a failure naming the shard:\n%s%s", strings.Join(c, " "), code, stdout, stderr)
				}
			}
		})
	}
}

// TestInspectSplitIsAName: --split names one of the release's splits,
// never a path.
func TestInspectSplitIsAName(t *testing.T) {
	rel := makeRelease(t)
	for _, split := range []string{"../../etc", "train/../..", "nosuch"} {
		code, _, stderr := synth(t, "inspect", rel, "--split", split)
		if code == 0 || !strings.Contains(stderr, "its splits are train, validation, test") {
			t.Errorf("--split %s: exit %d: %s", split, code, stderr)
		}
	}
}
