//go:build linux

package hostile

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// hostile is one hostile input and what must come of it. To add a case,
// append to cases: setup builds the inputs inside the sandbox (s.pack,
// s.release and s.synth run the binary for that) and returns the command
// line; everything else is the expected outcome. The cases of issue 11
// come first, then those of issue 31 (finding set), each of which failed
// on the main of its day. A case may write only
// the paths in writes (relative to the working folder); any other change
// below the sandbox fails it, and so does a secret of the environment
// (OPENAI_API_KEY) in the output or in any file it wrote.
type hostile struct {
	name    string
	item    int  // the item of issue 11 it checks
	finding int  // the finding of issue 31 it checks (second pass)
	short   bool // part of the short pass make test runs
	setup   func(t *testing.T, s *sandbox) []string
	// serve, when set, runs the command as a server: started, given to
	// serve once it listens, then stopped with SIGTERM.
	serve func(t *testing.T, s *sandbox, addr string)

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

// cases are every row of make hostile: issue 11's, then issue 31's.
var cases = slices.Concat(firstPass, secondPass)

// firstPass are the cases of issue 11.
var firstPass = []hostile{
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
		code: 1, stderr: []string{"config /dev/zero: /dev/zero is not a regular file or a pipe (a device)"}, maxRSS: 300 << 20},
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

// Inputs of the second pass (issue 31).
const (
	// badPolicy is a policy that is not UTF-8: Latin-1 "café".
	badPolicy = "You help customers.\nSay caf\xe9 to nobody.\n"
	// failing is a dialogue of the retail domain that fails verification:
	// it calls a tool the domain does not have.
	failing = `{"id":"x","messages":[{"role":"user","content":"Cancel my order."},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"no_such_tool","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","content":"done"},{"role":"assistant","content":"Done."}],` +
		`"ground_truth":{"actions":[],"outputs":[]}}` + "\n"
	// meaningless is a spec whose schemas and path items mean nothing.
	meaningless = `openapi: 3.0.3
info: {title: Loops, version: "1"}
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Item"}
  /nothing: null
  /things:
    post:
      operationId: makeThing
      requestBody:
        content:
          application/json:
            schema: 42
      responses:
        "200": {description: ok}
components:
  schemas:
    Item: {$ref: "#/components/schemas/Item"}
`
)

// of marks a case built by a helper as one of issue 31's.
func of(finding int, h hostile) hostile {
	h.finding = finding
	return h
}

// llmRun is a one-blueprint run of the llm engine against base, whose
// key is in SYNTH_HOSTILE_SECRET.
func llmRun(base string, more ...string) []string {
	return append([]string{"run", "-n", "1", "--quiet", "--out", "out", "--engine", "llm", "--base-url", base, "--model", "m",
		"--api-key-env", "SYNTH_HOSTILE_SECRET", "--trials", "1", "--judges", "0", "--max-turns", "4"}, more...)
}

// echoing answers every request with the key split, as a reply (200) or
// as an error (500).
func echoing(status int) func(w http.ResponseWriter, key string) {
	return func(w http.ResponseWriter, key string) {
		w.Header().Set("Content-Type", "application/json")
		if status != http.StatusOK {
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":"server_error"}}`, "bad key "+split(key))
			return
		}
		w.Write(completion("Your key is " + split(key) + ", keep it safe."))
	}
}

// throttling answers every request 429 with the Retry-After given.
func throttling(retryAfter string) func(w http.ResponseWriter, key string) {
	return func(w http.ResponseWriter, _ string) {
		w.Header().Set("Retry-After", retryAfter)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
	}
}

// userFolder is a folder of the user's own files, each of a name synth
// also writes, and a link F to it.
func userFolder(s *sandbox) {
	s.write("userdata/README.md", []byte("MY OWN README"))
	s.write("userdata/sft/notes.txt", []byte("mine"))
	s.symlink("userdata", "F")
}

// shards makes two shard outputs, s0 and s1, of a 40-blueprint run.
func shards(s *sandbox) {
	for i := range 2 {
		s.synth("run", "-n", "40", "--chunk-size", "10", "--shard", fmt.Sprintf("%d/2", i), "--quiet", "--out", fmt.Sprintf("s%d", i))
	}
}

// damagedShard makes a release whose train shard spoil has changed.
func damagedShard(s *sandbox, spoil func(shard string)) {
	s.release("retail", "rel")
	spoil("rel/sft/train-00000-of-00001.parquet")
}

// dripCase is a server started by args, whose route url must cut off a
// body dripped a byte a second before 60 bytes.
func dripCase(name string, route string, args ...string) hostile {
	return hostile{
		name: name, finding: 12,
		setup: func(t *testing.T, s *sandbox) []string { return args },
		serve: func(t *testing.T, s *sandbox, addr string) {
			if n := dripped("http://"+addr+route, 60); n >= 60 {
				t.Errorf("the server read a body dripped at one byte a second for %d seconds", n)
			}
		},
		code: 0, stdout: []string{"stopped"},
	}
}

// secondPass are the cases of issue 31; each failed on the main of its
// day.
var secondPass = []hostile{
	// 1. Every path synth writes under is judged by what it really names.
	{name: "--force through a linked --out", finding: 1, short: true,
		setup: func(t *testing.T, s *sandbox) []string { userFolder(s); return run("F", "--force") },
		code:  1, stderr: []string{"--out F (a link to ", "holds F/README.md, which synth did not write"}},
	{name: "merge -o onto a shard output", finding: 1,
		setup: func(t *testing.T, s *sandbox) []string { shards(s); return []string{"merge", "s0", "s1", "-o", "s0"} },
		code:  1, stderr: []string{"-o s0 is the shard output s0", "synth merge only reads the shard outputs"}},
	{name: "merge -o through a link to a shard output", finding: 1,
		setup: func(t *testing.T, s *sandbox) []string {
			shards(s)
			s.symlink("s1", "M")
			return []string{"merge", "s0", "s1", "-o", "M", "--force"}
		},
		code: 1, stderr: []string{"-o M is the shard output s1"}},
	{name: "export -o through a link into the release", finding: 1,
		setup: func(t *testing.T, s *sandbox) []string {
			s.release("retail", "rel")
			s.symlink("rel", "L")
			return []string{"export", "rel", "--format", "jsonl", "-o", "L"}
		},
		code: 1, stderr: []string{"-o L is inside the release rel"}},
	{name: "verify --keep --force through a linked folder", finding: 1,
		setup: func(t *testing.T, s *sandbox) []string {
			userFolder(s)
			s.write("in.jsonl", []byte(failing))
			return []string{"verify", "--domain", "retail", "--keep", "F", "--force", "in.jsonl"}
		},
		code: 1, stderr: []string{"--keep F (a link to ", "holds F/README.md"}},
	{name: "import-openapi -o a link to an empty folder", finding: 1,
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("spec.yaml", []byte(meaningless))
			os.MkdirAll(s.path("E"), 0o755)
			s.symlink("E", "L")
			return []string{"domain", "import-openapi", "spec.yaml", "-o", "L"}
		},
		// The pack goes where the link leads; the link stays.
		code: 0, writes: []string{"E"},
		after: func(t *testing.T, s *sandbox, r result) {
			if _, err := os.Stat(s.path("E/domain.yaml")); err != nil {
				t.Errorf("the pack is not in the folder the link names: %v", err)
			}
		}},

	// 2. A key echoed with whitespace and punctuation put in is redacted.
	{name: "a reply echoing the key split", finding: 2, short: true,
		setup: func(t *testing.T, s *sandbox) []string { return llmRun(s.llmServer(echoing(http.StatusOK))) },
		code:  0, writes: []string{"out", "../cache"}},
	{name: "an error echoing the key split", finding: 2,
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("run.yaml", []byte("llm:\n  max_retries: 1\n"))
			return llmRun(s.llmServer(echoing(http.StatusInternalServerError)), "--config", "run.yaml")
		},
		code: 1, stderr: []string{"gave up after 2 attempt(s)", "bad key [redacted]"}, writes: []string{"out", "../cache"}},

	// 3. A wait longer than the request's budget fails the request.
	{name: "Retry-After of 999999 seconds", finding: 3,
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("run.yaml", []byte("llm:\n  timeout: 5s\n  max_retries: 2\n"))
			return llmRun(s.llmServer(throttling("999999")), "--config", "run.yaml")
		},
		code: 1, stderr: []string{"the server asked to wait 277h46m39s before retrying (Retry-After)", "budget of 15s"}, writes: []string{"out", "../cache"}},
	{name: "Retry-After of a date in 2099", finding: 3,
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("run.yaml", []byte("llm:\n  timeout: 5s\n  max_retries: 2\n"))
			return llmRun(s.llmServer(throttling("Thu, 01 Jan 2099 00:00:00 GMT")), "--config", "run.yaml")
		},
		code: 1, stderr: []string{"(Retry-After), more than the", "raise llm.timeout or llm.max_retries"}, writes: []string{"out", "../cache"}},

	// 4 and 8. Every number of a config finite and in range, by its key.
	of(4, badConfig("write weights summing past the largest number", "weights for range 0-5 sum past the largest number",
		"--write-weights", "1e308,1e308,1e308,1e308,1e308,1e308")),
	{name: "config NaN named by its key", finding: 8,
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("c.yaml", []byte("n: 20\nvalidation: .nan\n"))
			return []string{"run", "--config", "c.yaml", "--out", "out"}
		},
		code: 1, stderr: []string{"config c.yaml: validation: not a finite number"}},
	{name: "config -Inf in a list named by its key", finding: 8,
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("c.yaml", []byte("n: 20\nwrite_weights: [1, 1, -.inf, 1, 1, 1]\n"))
			return []string{"run", "--config", "c.yaml", "--out", "out"}
		},
		code: 1, stderr: []string{"write_weights[2]: not a finite number"}},
	{name: "llm.max_retries of a billion", finding: 8,
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("run.yaml", []byte("llm:\n  max_retries: 1000000000\n"))
			return llmRun("http://127.0.0.1:1/v1", "--config", "run.yaml")
		},
		code: 1, stderr: []string{"llm.max_retries: 1000000000: want -1 (no retries), 0 (the default 8) or up to 100"}},
	{name: "llm.timeout of 100000 hours", finding: 8,
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("run.yaml", []byte("llm:\n  timeout: 100000h\n"))
			return llmRun("http://127.0.0.1:1/v1", "--config", "run.yaml")
		},
		code: 1, stderr: []string{"llm.timeout: 100000h: at most 1h0m0s"}},

	// 5. No input blocks: fifos are refused or read bounded.
	{name: "--config a fifo nobody writes to", finding: 5, short: true,
		setup: func(t *testing.T, s *sandbox) []string { s.fifo("c.fifo"); return run("out", "--config", "c.fifo") },
		code:  1, stderr: []string{"config c.fifo: c.fifo is a pipe with nothing to read"}},
	{name: "import-openapi of a fifo", finding: 5,
		setup: func(t *testing.T, s *sandbox) []string {
			s.fifo("spec.yaml")
			return []string{"domain", "import-openapi", "spec.yaml", "-o", "pk"}
		},
		code: 1, stderr: []string{"spec.yaml is a pipe with nothing to read"}},
	{name: "import-openapi of a spec whose $ref is a fifo", finding: 5,
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("spec.yaml", []byte(strings.Replace(meaningless, `{$ref: "#/components/schemas/Item"}`+"\n  /nothing", `{$ref: "item.yaml"}`+"\n  /nothing", 1)))
			s.fifo("item.yaml")
			return []string{"domain", "import-openapi", "spec.yaml", "-o", "pk"}
		},
		code: 1, stderr: []string{"item.yaml is not a regular file"}},
	{name: "import-mcp of a tool list that is a fifo", finding: 5, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			s.fifo("tools.json")
			return []string{"domain", "import-mcp", "tools.json", "-o", "pk"}
		},
		code: 1, stderr: []string{"tools.json is not a regular file"}},
	{name: "export of a release whose shard is a fifo", finding: 5, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			damagedShard(s, s.fifo)
			return []string{"export", "rel", "--format", "openai", "-o", "x"}
		},
		code: 1, stderr: []string{"train-00000-of-00001.parquet is not a regular file (a named pipe)"}, writes: []string{"x"}},
	{name: "inspect of a release whose shard is a fifo", finding: 5,
		setup: func(t *testing.T, s *sandbox) []string {
			damagedShard(s, s.fifo)
			return []string{"inspect", "rel"}
		},
		code: 1, stderr: []string{"rel is damaged: sft/train-00000-of-00001.parquet is not a regular file (a named pipe)"}},
	{name: "verify of a fifo", finding: 5,
		setup: func(t *testing.T, s *sandbox) []string {
			s.fifo("in.jsonl")
			return []string{"verify", "--domain", "retail", "in.jsonl"}
		},
		code: 2, stderr: []string{"unreadable in.jsonl: in.jsonl is not a regular file (a named pipe)", "no dialogue could be read"}},
	{name: "merge of a shard whose summary is a fifo", finding: 5,
		setup: func(t *testing.T, s *sandbox) []string {
			shards(s)
			s.fifo("s0/.synth-work/chunks/c-000000/summary.json")
			return []string{"merge", "s0", "s1", "-o", "merged"}
		},
		code: 1, stderr: []string{"summary.json is not a regular file (a named pipe)"}},

	// 6. Every error text bounded.
	of(6, brokenRead("a read handler failing with 20 MB", "    fail('x' * (20 << 20))\n", "(20.0 MiB more)", false)),
	of(6, brokenRead("a read handler quoting 20 MB in an error", "    return int('x' * (20 << 20))\n", "MiB more)", false)),

	// 7. domain validate calls every handler; text that is not UTF-8 is
	// refused at load.
	{name: "domain validate on a read handler that eats memory", finding: 7, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.replace("pack/handlers.star", readHandler, readHandler+memoryBomb)
			return []string{"domain", "validate", "pack", "--max-memory", "512MiB"}
		},
		code: 1, stderr: []string{"stopped at the memory bound of 512 MiB while checking the pack pack"}, maxRSS: 1 << 30},
	{name: "domain validate on a read handler that loops", finding: 7,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.replace("pack/handlers.star", readHandler, readHandler+"    while True:\n        pass\n")
			return []string{"domain", "validate", "pack"}
		},
		code: 1, stdout: []string{"pack/handlers.star: called once with", "handler get_ticket_details ran past its step limit"}, stderr: []string{"1 problem(s)"}},
	{name: "domain validate on a policy that is not UTF-8", finding: 7,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.write("pack/policy.md", []byte(badPolicy))
			return []string{"domain", "validate", "pack"}
		},
		code: 1, stdout: []string{"pack/policy.md:2: the policy is not UTF-8 text"}},
	{name: "run on a policy that is not UTF-8", finding: 7,
		setup: func(t *testing.T, s *sandbox) []string {
			s.pack("pack")
			s.write("pack/policy.md", []byte(badPolicy))
			return run("out", "--domain", "pack")
		},
		code: 1, stderr: []string{"policy.md:2: the policy is not UTF-8 text"}},
	of(7, brokenRead("a read handler returning bytes that are not UTF-8", "    return 'caf' + '\u00e9'[:1]\n", "a string that is not valid UTF-8", false)),

	// 9. What the OpenAPI import drops, it says.
	{name: "import-openapi of schemas and paths that mean nothing", finding: 9,
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("spec.yaml", []byte(meaningless))
			return []string{"domain", "import-openapi", "spec.yaml", "-o", "pk"}
		},
		code: 0, writes: []string{"pk"},
		stderr: []string{"path /nothing (line 15): skipped: the path item is null", "schema Item (line 27) is a $ref to itself", "the schema at line 22 is the number 42"},
		after: func(t *testing.T, s *sandbox, r result) {
			if md := string(s.read("pk/IMPORT.md")); !strings.Contains(md, "## Warnings (3)") {
				t.Errorf("IMPORT.md does not list the 3 warnings")
			}
		}},

	// 10. Read commands exit non-zero on damage they see.
	{name: "inspect of a truncated shard", finding: 10, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			damagedShard(s, func(p string) { os.Truncate(s.path(p), 2000) })
			return []string{"inspect", "rel"}
		},
		code: 1, stderr: []string{"sft/train-00000-of-00001.parquet is 2000 bytes, the manifest says"}},
	{name: "inspect of a shard linked to /dev/zero", finding: 10,
		setup: func(t *testing.T, s *sandbox) []string {
			damagedShard(s, func(p string) { s.symlink("/dev/zero", p) })
			return []string{"inspect", "rel"}
		},
		code: 1, stderr: []string{"is not a regular file (a symbolic link)"}},
	{name: "stats of a truncated shard", finding: 10,
		setup: func(t *testing.T, s *sandbox) []string {
			damagedShard(s, func(p string) { os.Truncate(s.path(p), 2000) })
			return []string{"stats", "rel"}
		},
		code: 1, stderr: []string{"rel is damaged", "run synth validate rel"}},
	{name: "inspect --split ../../etc", finding: 10,
		setup: func(t *testing.T, s *sandbox) []string {
			s.release("retail", "rel")
			return []string{"inspect", "rel", "--split", "../../etc"}
		},
		code: 1, stderr: []string{`has no split "../../etc"; its splits are`}},

	// 11. verify's exit status says how the inputs fared.
	{name: "verify where no dialogue passes", finding: 11,
		setup: func(t *testing.T, s *sandbox) []string {
			s.write("in.jsonl", []byte(failing))
			return []string{"verify", "--domain", "retail", "in.jsonl"}
		},
		code: 1, stderr: []string{"0 passed, 1 failed"}},
	{name: "verify of an input that cannot be read", finding: 11, short: true,
		setup: func(t *testing.T, s *sandbox) []string {
			s.symlink("/dev/zero", "in.jsonl")
			return []string{"verify", "--domain", "retail", "in.jsonl"}
		},
		code: 2, stderr: []string{"unreadable in.jsonl: in.jsonl is not a regular file (a device)", "no dialogue could be read"}},

	// 12. Servers cut off a client that drips its request.
	dripCase("serve cuts off a dripped body", "/v1/sessions", "serve", "--addr", "127.0.0.1:0", "--root", ""),
	dripCase("emulate cuts off a dripped body", "/v1/chat/completions", "emulate", "--addr", "127.0.0.1:0"),
}
