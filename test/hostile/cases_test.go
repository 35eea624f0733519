//go:build linux

package hostile

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// hostile is one hostile input and what must come of it. To add a case,
// append to cases: setup builds the inputs inside the sandbox (s.pack,
// s.release and s.synth run the binary for that) and returns the command
// line; everything else is the expected outcome. A case may write only
// the paths in writes (relative to the working folder); any other change
// below the sandbox fails it, and so does a secret of the environment
// (OPENAI_API_KEY) in the output or in any file it wrote.
type hostile struct {
	name  string
	item  int  // the item of issue 11 it checks
	short bool // part of the short pass make test runs
	setup func(t *testing.T, s *sandbox) []string

	code   int      // the exit status
	stderr []string // each must appear on stderr
	stdout []string // each must appear on stdout
	absent []string // none may appear on either
	writes []string // what the command may change; nothing else
	maxRSS int64    // when set, the most memory the command may use
	after  func(t *testing.T, s *sandbox, r result)
}

// Handler and generator lines of the starter pack the cases edit.
const (
	readHandler  = "def get_ticket_details(db, args):\n"
	userHandler  = "def get_customer_details(db, args):\n"
	generateLine = "def generate(seed):\n"
	// memoryBomb allocates 32 GiB in three steps.
	memoryBomb = "    x = \"x\" * (1 << 29)\n    y = \"\".join([x] * 64)\n"
)

// run is the command line of a small run.
func run(out string, more ...string) []string {
	return append([]string{"run", "-n", "20", "--quiet", "--out", out}, more...)
}

// badConfig is a run refused for its config: nothing may be written.
func badConfig(name string, want string, flags ...string) hostile {
	return hostile{
		name: "config " + name, item: 7, short: name == "--reads 0-99" || name == "-n 9223372036854775807",
		setup: func(t *testing.T, s *sandbox) []string { return run("out", flags...) },
		code:  1, stderr: []string{want},
	}
}

// brokenRead is a pack whose ticket reader's body starts with body.
func brokenRead(name, body, want string, short bool) hostile {
	return hostile{
		name: name, item: 9, short: short,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.replace("pack/handlers.star", readHandler, readHandler+body)
			return run("out", "--domain", "pack")
		},
		code: 1, stderr: []string{"ticket", "cannot be read: ", want},
	}
}

var cases = []hostile{
	// 1. --force deletes only what synth wrote; obviously wrong targets are refused.
	{name: "--force over a folder of user files", item: 1, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			for _, d := range []string{"F/Documents", "F/.config"} {
				os.MkdirAll(s.path(d), 0o755)
			}
			s.write("F/README.md", []byte("my notes"))
			s.write("F/sft/my-training-data.parquet", []byte("PAR1 mine"))
			s.write("F/rejected/why.txt", []byte("because"))
			s.write("F/sft/.notes.tmp-1", []byte("hidden"))
			return run("F", "--force")
		},
		code: 1, stderr: []string{"--out F holds F/.config", "synth deletes only what it wrote itself"}},
	{name: "--out /", item: 1,
		setup: func(t *testing.T, s *sandbox) []string { return run("/") },
		code:  1, stderr: []string{"--out / is the file system root"}},
	{name: "--out $HOME", item: 1,
		setup: func(t *testing.T, s *sandbox) []string { return run(s.home(), "--force") },
		code:  1, stderr: []string{"is your home folder or a folder above it"}},
	{name: "--out above $HOME", item: 1,
		setup: func(t *testing.T, s *sandbox) []string { return run(s.root, "--force") },
		code:  1, stderr: []string{"is your home folder or a folder above it"}},

	// 2. Links in a pack or a release never lead synth outside it.
	{name: "pack policy linked to the environment", item: 2, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.symlink("/proc/self/environ", "pack/policy.md")
			return run("out", "--domain", "pack")
		},
		code: 1, stderr: []string{"policy.md is a symbolic link that leads outside the pack folder"}},
	{name: "pack folder linked to /", item: 2,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.symlink("/", "pack/root")
			s.replace("pack/domain.yaml", "policy: policy.md", "policy: root/etc/passwd")
			return run("out", "--domain", "pack")
		},
		code: 1, stderr: []string{"root is a symbolic link that leads outside the pack folder"}},
	{name: "domain validate on a linked policy", item: 2,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.symlink("/proc/self/environ", "pack/policy.md")
			return []string{"domain", "validate", "pack"}
		},
		code: 1, stdout: []string{"symbolic link that leads outside the pack folder"}, stderr: []string{"1 problem(s)"}},
	{name: "domain show on a linked policy", item: 2,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.symlink("/proc/self/environ", "pack/policy.md")
			return []string{"domain", "show", "pack"}
		},
		code: 1, stderr: []string{"symbolic link that leads outside the pack folder"}},
	{name: "validate a release whose policy is linked to the environment", item: 2,
		setup: func(t *testing.T, s *sandbox) []string {
			s.release(s.pack("pack"), "rel")
			s.symlink("/proc/self/environ", "rel/domain/policy.md")
			return []string{"validate", "rel"}
		},
		code: 1, stdout: []string{"domain/policy.md: read: domain/policy.md is not a regular file"}},

	// 3. Damaged chunks are redone or refused, never published.
	{name: "a damaged chunk is redone on resume", item: 3, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			s.synth("run", "-n", "40", "--chunk-size", "10", "--shard", "0/2", "--quiet", "--out", "out")
			files, _ := filepath.Glob(s.path("out/.synth-work/chunks/c-000000/sft/*.parquet"))
			if len(files) == 0 {
				t.Fatal("the shard left no chunk files")
			}
			b := s.read(files[0])
			b[len(b)/2] ^= 0x5a
			s.write(files[0], b)
			return []string{"run", "-n", "40", "--chunk-size", "10", "--quiet", "--out", "out"}
		},
		code: 0, stderr: []string{"chunk 0 is redone", "is damaged"}, writes: []string{"out"},
		after: func(t *testing.T, s *sandbox, r result) {
			if v := s.run("validate", "out"); v.code != 0 {
				t.Errorf("the resumed release does not validate:\n%s%s", v.stdout, v.stderr)
			}
		}},
	{name: "merge refuses a truncated chunk", item: 3,
		setup: func(t *testing.T, s *sandbox) []string {
			for i := range 2 {
				s.synth("run", "-n", "40", "--chunk-size", "10", "--shard", strconv.Itoa(i)+"/2", "--quiet", "--out", "s"+strconv.Itoa(i))
			}
			files, _ := filepath.Glob(s.path("s0/.synth-work/chunks/c-000000/sft/*.parquet"))
			if len(files) == 0 {
				t.Fatal("the shard left no chunk files")
			}
			if err := os.Truncate(files[0], 100); err != nil {
				t.Fatal(err)
			}
			return []string{"merge", "s0", "s1", "-o", "merged"}
		},
		code: 1, stderr: []string{"cannot be merged", "is damaged", "rerun the shard that made it"}},

	// 4. One writer per out dir.
	{name: "a second run on a locked out dir", item: 4, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			lock := s.path("out/.synth-work/lock")
			s.write(lock, []byte(strconv.Itoa(os.Getpid())+"\n"))
			f, err := os.OpenFile(lock, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
				t.Fatal(err)
			}
			return run("out")
		},
		code: 1, stderr: []string{"another synth run (pid " + strconv.Itoa(os.Getpid()) + ") is writing out"}},

	// 6. Every input bounded.
	{name: "--config /dev/zero", item: 6, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			return []string{"run", "--config", "/dev/zero", "--out", "out"}
		},
		code: 1, stderr: []string{"config /dev/zero is larger than 1 MiB"}, maxRSS: 300 << 20},
	{name: "a pack policy over its limit", item: 6,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.write("pack/policy.md", bytes.Repeat([]byte("Be kind. "), 240<<10))
			return run("out", "--domain", "pack")
		},
		code: 1, stderr: []string{"policy.md is 2211840 bytes, more than the 1 MiB a pack's policy file may hold"}},
	{name: "a pack database of 300 MiB", item: 6,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.replace("pack/domain.yaml", "generator: generator.star", "database: db.json")
			s.write("pack/db.json", nil)
			if err := os.Truncate(s.path("pack/db.json"), 300<<20); err != nil {
				t.Fatal(err)
			}
			return run("out", "--domain", "pack")
		},
		code: 1, stderr: []string{"more than the 256 MiB a pack's database file may hold"}, maxRSS: 300 << 20},
	{name: "validate a release whose handler eats memory", item: 6, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			s.release(s.pack("pack"), "rel")
			s.replace("rel/domain/handlers.star", readHandler, readHandler+memoryBomb)
			return []string{"validate", "rel", "--max-memory", "512MiB"}
		},
		code: 1, stderr: []string{"stopped at the memory bound of 512 MiB while checking the release rel: its Starlark code or its data", "--max-memory 1GiB"},
		maxRSS: 1 << 30},
	{name: "domain validate on a generator that eats memory", item: 6,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.replace("pack/generator.star", generateLine, generateLine+memoryBomb)
			return []string{"domain", "validate", "pack", "--max-memory", "512MiB"}
		},
		code: 1, stderr: []string{"stopped at the memory bound of 512 MiB while checking the pack pack: its Starlark code or its data"}, maxRSS: 1 << 30},
	{name: "validate a manifest linked to /dev/zero", item: 6,
		setup: func(t *testing.T, s *sandbox) []string {
			s.release("retail", "rel")
			s.symlink("/dev/zero", "rel/manifest.json")
			return []string{"validate", "rel"}
		},
		code: 1, stdout: []string{"manifest.json: manifest: rel is not a synth release", "not a regular file (a symbolic link)"}, maxRSS: 300 << 20},
	{name: "stats on a manifest larger than any release's", item: 6,
		setup: func(t *testing.T, s *sandbox) []string {
			s.release("retail", "rel")
			if err := os.Truncate(s.path("rel/manifest.json"), 300<<20); err != nil {
				t.Fatal(err)
			}
			return []string{"stats", "rel"}
		},
		code: 1, stderr: []string{"manifest.json is larger than 256 MiB"}, maxRSS: 300 << 20},
	{name: "validate a blueprint line that never ends", item: 6,
		setup: func(t *testing.T, s *sandbox) []string {
			s.release("retail", "rel")
			rel := "blueprints/train-00000-of-00001.jsonl.gz"
			s.write("rel/"+rel, gzipLines(strings.Repeat(" ", 65<<20)))
			s.relist("rel", rel, 1)
			return []string{"validate", "rel"}
		},
		code: 1, stdout: []string{"line too long: more than 64 MiB"}},

	// 7. The config is checked before anything is written.
	badConfig("--dpo-mode bogus", `--dpo-mode "bogus": want one of segment, session, equal`, "--dpo", "--dpo-mode", "bogus"),
	badConfig("--dpo-mix nosuch=1", `dpo_mix: unknown failure type "nosuch"`, "--dpo-mix", "nosuch=1"),
	badConfig("--dpo-pairs 0", "dpo_pairs 0: need at least 1", "--dpo-pairs", "0"),
	badConfig("--write-weights with a weight too few", "--write-weights 1,2: 2 weights given for range 0-5, which has 6 values", "--write-weights", "1,2"),
	badConfig("--reads 0-99", "--reads 0-99: at most 64 reads before each write", "--reads", "0-99"),
	badConfig("--validation NaN", "--validation: not a finite number", "--validation", "NaN"),
	badConfig("-n 9223372036854775807", "-n 9223372036854775807: at most 1000000000 blueprints", "-n", "9223372036854775807"),
	badConfig("--workers 10000000", "--workers 10000000: at most 1024", "--workers", "10000000"),
	badConfig("--dialogues 1000000000", "--dialogues 1000000000: at most 4096",
		"--engine", "llm", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--dialogues", "1000000000"),
	{name: "config of two YAML documents", item: 7,
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("c.yaml", []byte("n: 20\n---\nn: 30\n"))
			return []string{"run", "--config", "c.yaml", "--out", "out"}
		},
		code: 1, stderr: []string{"config c.yaml holds more than one YAML document"}},
	{name: "a run that fails at its first blueprint leaves the corrected command free", item: 7,
		// The config is sound; the endpoint is not there, so the first
		// blueprint fails after the out dir was claimed.
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("run.yaml", []byte("llm:\n  api_key_env: none\n  max_retries: 1\n"))
			return run("out", "--config", s.path("run.yaml"), "--engine", "llm", "--base-url", "http://127.0.0.1:1/v1", "--model", "m")
		},
		code: 1, stderr: []string{"gave up after", "connection refused"}, writes: []string{"out", "../cache"},
		after: func(t *testing.T, s *sandbox, r result) {
			if c := s.run(run("out")...); c.code != 0 {
				t.Errorf("the corrected command is refused: %s", c.stderr)
			}
		}},
	{name: "a pack by its relative and its absolute path is one config", item: 7,
		setup: func(t *testing.T, s *sandbox) []string {
			s.release(s.path(s.pack("pack")), "rel")
			return run("rel", "--domain", "pack")
		},
		code: 0, stdout: []string{"rel already holds this release"}},

	// 8. Output that cannot hurt.
	{name: "inspect prints escape sequences from the rows escaped", item: 8, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			// Dates are said in the agent's words, not only in JSON.
			s.replace("pack/generator.star", `"2025-%s-%sT%s:%s:00Z" % (`, `"2025-%s-%sT%s:%s:00Z\x1b]0;pwned\x07\x1b[2J\u202e" % (`)
			s.release("pack", "rel")
			return []string{"inspect", "rel"}
		},
		code: 0, stdout: []string{`\x1b]0;pwned\a\x1b[2J\u202e`}, absent: []string{"\x1b", "\x07", "\u202e"}},
	{name: "report -o onto the release's manifest", item: 8, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			s.release("retail", "rel")
			return []string{"report", "rel", "-o", "rel/manifest.json"}
		},
		code: 1, stderr: []string{"-o rel/manifest.json is the release's own rel/manifest.json: synth report never writes over a release's files"}},
	{name: "report -o into a data folder", item: 8,
		setup: func(t *testing.T, s *sandbox) []string {
			s.release("retail", "rel")
			return []string{"report", "rel", "-o", "rel/sft/report.html"}
		},
		code: 1, stderr: []string{"never writes over a release's files"}},

	// 9. Errors say the cause.
	brokenRead("a read handler that loops", "    while True:\n        pass\n", "ran past its step limit of 1000000 steps", true),
	brokenRead("a read handler that recurses", "    return get_ticket_details(db, args)\n", "called recursively", false),
	brokenRead("a read handler that returns a set", "    return set([1])\n", "returned a non-JSON value: a value of type set", false),
	{name: "--writes 0 on a pack whose reads fail", item: 9,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.replace("pack/handlers.star", userHandler, userHandler+"    fail('the records are locked')\n")
			return run("out", "--domain", "pack", "--writes", "0")
		},
		code: 1, stderr: []string{"cannot build a task without writes", "the records are locked"}, absent: []string{"lower --writes"}},
	{name: "validate flags a work dir left after the manifest", item: 9, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			s.release("retail", "rel")
			os.MkdirAll(s.path("rel/.synth-work/chunks/c-000000"), 0o755)
			return []string{"validate", "rel"}
		},
		code: 1, stdout: []string{".synth-work/: work_dir: the work dir of synth run is still here"}},
}
