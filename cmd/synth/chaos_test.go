package main

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/synth-data/synth/internal/testtree"
)

// buildSynth compiles the command once per test binary run.
func buildSynth(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "synth")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestChaos is the short version of scripts/chaos.sh: SIGKILL the real
// process at random moments, resume, and compare with an uninterrupted run.
func TestChaos(t *testing.T) {
	bin := buildSynth(t)
	dir := t.TempDir()
	args := []string{"run", "-n", "1200", "--seed", "5", "--chunk-size", "100", "--quiet", "--dpo"}
	start := time.Now()
	if out, err := exec.Command(bin, append(args, "--out", filepath.Join(dir, "ref"))...).CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	length := time.Since(start)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	chaos := filepath.Join(dir, "chaos")
	for k := 0; k < 3; k++ {
		cmd := exec.Command(bin, append(args, "--out", chaos)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(float64(length) * (0.1 + 0.8*rng.Float64())))
		_ = cmd.Process.Kill() // SIGKILL
		_ = cmd.Wait()
		err := filepath.WalkDir(chaos, func(p string, d fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(chaos, p)
			if err == nil && strings.Contains(rel, ".tmp") && !strings.HasPrefix(rel, ".synth-work") {
				t.Errorf("after kill %d: temporary file visible: %s", k, rel)
			}
			return err
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(bin, append(args, "--out", chaos)...).CombinedOutput(); err != nil {
		t.Fatalf("final resume: %v\n%s", err, out)
	}
	want, got := testtree.Hashes(t, filepath.Join(dir, "ref")), testtree.Hashes(t, chaos)
	for name, h := range want {
		if got[name] != h {
			t.Errorf("%s differs after kills and resumes", name)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d files after resumes, %d uninterrupted", len(got), len(want))
	}
}

// TestShardProcesses runs four shard processes at once and merges them.
func TestShardProcesses(t *testing.T) {
	bin := buildSynth(t)
	dir := t.TempDir()
	args := []string{"run", "-n", "800", "--seed", "3", "--chunk-size", "90", "--quiet"}
	if out, err := exec.Command(bin, append(args, "--out", filepath.Join(dir, "single"))...).CombinedOutput(); err != nil {
		t.Fatalf("single run: %v\n%s", err, out)
	}
	var cmds []*exec.Cmd
	var outs []string
	for i := 0; i < 4; i++ {
		out := filepath.Join(dir, "shard"+string(rune('0'+i)))
		outs = append(outs, out)
		cmd := exec.Command(bin, append(args, "--shard", string(rune('0'+i))+"/4", "--out", out)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard: %v", err)
		}
	}
	merged := filepath.Join(dir, "merged")
	if out, err := exec.Command(bin, append(append([]string{"merge"}, outs...), "-o", merged)...).CombinedOutput(); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	want, got := testtree.Hashes(t, filepath.Join(dir, "single")), testtree.Hashes(t, merged)
	for name, h := range want {
		if got[name] != h {
			t.Errorf("%s differs between the merged shards and the single run", name)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d files merged, %d in the single run", len(got), len(want))
	}
}

// TestSIGTERM: a terminated run stops promptly, keeps its finished chunks,
// and a rerun completes the same release as an uninterrupted run.
func TestSIGTERM(t *testing.T) {
	bin := buildSynth(t)
	dir := t.TempDir()
	args := []string{"run", "-n", "2000", "--seed", "8", "--chunk-size", "100", "--quiet"}
	if out, err := exec.Command(bin, append(args, "--out", filepath.Join(dir, "ref"))...).CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "term")
	cmd := exec.Command(bin, append(args, "--out", out)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the first finished chunk, then terminate.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m, _ := filepath.Glob(filepath.Join(out, ".synth-work", "chunks", "c-*")); len(m) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if took := time.Since(sent); took > 5*time.Second {
		t.Errorf("the run took %s to stop after SIGTERM", took)
	}
	if err == nil {
		t.Skip("the run finished before the signal arrived")
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err == nil {
		t.Fatal("a terminated run wrote a manifest")
	}
	if res, err := exec.Command(bin, append(args, "--out", out)...).CombinedOutput(); err != nil || !strings.Contains(string(res), "resumed") {
		t.Fatalf("resume: %v\n%s", err, res)
	}
	want, got := testtree.Hashes(t, filepath.Join(dir, "ref")), testtree.Hashes(t, out)
	for name, h := range want {
		if got[name] != h {
			t.Errorf("%s differs after SIGTERM and resume", name)
		}
	}
}
