//go:build linux

package hostile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/synth-data/synth/export"
)

// sandbox is one case's world: a folder holding the working directory,
// HOME, TMPDIR and the cache, so that every file the command could touch
// is inside it and is compared before and after.
type sandbox struct {
	t      *testing.T
	bin    string
	root   string
	secret string // the value of OPENAI_API_KEY and SYNTH_HOSTILE_SECRET
}

func newSandbox(t *testing.T, bin string) *sandbox {
	root := t.TempDir()
	for _, d := range []string{"work", "home", "tmp", "cache"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 12)
	rand.Read(key)
	return &sandbox{t: t, bin: bin, root: root, secret: "sk-hostile-" + hex.EncodeToString(key)}
}

// path is a path inside the working directory (or absolute as given).
func (s *sandbox) path(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(s.root, "work", rel)
}

func (s *sandbox) home() string { return filepath.Join(s.root, "home") }

func (s *sandbox) write(rel string, data []byte) {
	s.t.Helper()
	p := s.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *sandbox) read(rel string) []byte {
	s.t.Helper()
	b, err := os.ReadFile(s.path(rel))
	if err != nil {
		s.t.Fatal(err)
	}
	return b
}

func (s *sandbox) symlink(target, rel string) {
	s.t.Helper()
	if err := os.MkdirAll(filepath.Dir(s.path(rel)), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Remove(s.path(rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.t.Fatal(err)
	}
	if err := os.Symlink(target, s.path(rel)); err != nil {
		s.t.Fatal(err)
	}
}

// replace edits a file, failing when old is not in it (the fixture the
// case relies on changed).
func (s *sandbox) replace(rel, old, new string) {
	s.t.Helper()
	b := string(s.read(rel))
	if !strings.Contains(b, old) {
		s.t.Fatalf("%s holds no %q: update the case", rel, old)
	}
	s.write(rel, []byte(strings.Replace(b, old, new, 1)))
}

func (s *sandbox) env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.home(),
		"TMPDIR=" + filepath.Join(s.root, "tmp"),
		"XDG_CACHE_HOME=" + filepath.Join(s.root, "cache"),
		"LANG=C.UTF-8",
		"OPENAI_API_KEY=" + s.secret,
		"SYNTH_HOSTILE_SECRET=" + s.secret,
	}
}

// result is what one command did.
type result struct {
	code           int
	stdout, stderr string
	maxRSS         int64 // bytes
}

// run runs the binary in the working directory. A command that does not
// end is killed after a generous guard, which fails the case.
func (s *sandbox) run(args ...string) result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bin, args...)
	cmd.Dir = filepath.Join(s.root, "work")
	cmd.Env = s.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		s.t.Fatalf("synth %s did not end: killed", strings.Join(args, " "))
	}
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		s.t.Fatalf("synth %s: %v", strings.Join(args, " "), err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss << 10
	}
	return r
}

// synth runs a setup step, which must succeed.
func (s *sandbox) synth(args ...string) result {
	s.t.Helper()
	r := s.run(args...)
	if r.code != 0 {
		s.t.Fatalf("setup: synth %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// pack makes the starter pack in dir.
func (s *sandbox) pack(dir string) string {
	s.synth("domain", "init", dir)
	return dir
}

// release makes a small release of the domain in out.
func (s *sandbox) release(domain, out string, more ...string) string {
	s.synth(append([]string{"run", "--domain", domain, "-n", "20", "--quiet", "--out", out}, more...)...)
	return out
}

// relist updates the manifest entry of a release file after the case
// edited it, as a forger would: size, sha256 and, given rows >= 0, rows.
func (s *sandbox) relist(out, rel string, rows int64) {
	s.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(s.read(filepath.Join(out, "manifest.json")), &m); err != nil {
		s.t.Fatal(err)
	}
	data := s.read(filepath.Join(out, rel))
	sum := sha256.Sum256(data)
	found := false
	for _, f := range m["files"].([]any) {
		e := f.(map[string]any)
		if e["path"] == rel {
			e["sha256"], e["bytes"], found = hex.EncodeToString(sum[:]), len(data), true
			if rows >= 0 {
				e["rows"] = rows
			}
		}
	}
	if !found {
		s.t.Fatalf("the manifest of %s does not list %s", out, rel)
	}
	raw, _ := json.MarshalIndent(m, "", "  ")
	s.write(filepath.Join(out, "manifest.json"), raw)
}

// gzipLines writes a gzipped file of the given lines.
func gzipLines(lines ...string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	for _, l := range lines {
		io.WriteString(zw, l+"\n")
	}
	zw.Close()
	return b.Bytes()
}

// entry is what the snapshot keeps of one path.
type entry struct {
	mode fs.FileMode
	sum  string // sha256 of a file, target of a link
}

// snapshot records every path below the sandbox root.
func (s *sandbox) snapshot() map[string]entry {
	s.t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{mode: info.Mode()}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			e.sum, _ = os.Readlink(p)
		case info.Mode().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			e.sum = hex.EncodeToString(h.Sum(nil))
		}
		out[p] = e
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

// changed lists the paths that differ between two snapshots.
func changed(before, after map[string]entry) []string {
	var out []string
	for p, e := range after {
		if b, ok := before[p]; !ok || b != e {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// secrets are the forms of the secret no output may hold.
func (s *sandbox) secrets() []string {
	return []string{s.secret, base64.StdEncoding.EncodeToString([]byte(s.secret)), strings.ToUpper(s.secret), hex.EncodeToString([]byte(s.secret))}
}

// leaks reports the first place a secret shows up: the command's output,
// or any file it wrote (gzip decompressed, Parquet rows decoded).
func (s *sandbox) leaks(r result, written []string) string {
	texts := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	for _, p := range written {
		info, err := os.Lstat(p)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		texts[p] = string(raw)
		switch {
		case strings.HasSuffix(p, ".gz"):
			if zr, err := gzip.NewReader(bytes.NewReader(raw)); err == nil {
				plain, _ := io.ReadAll(io.LimitReader(zr, 256<<20))
				texts[p+" (decompressed)"] = string(plain)
			}
		case strings.HasSuffix(p, ".parquet"):
			var b strings.Builder
			enc := json.NewEncoder(&b)
			if strings.Contains(p, string(filepath.Separator)+"dpo"+string(filepath.Separator)) {
				export.ScanDPO(p, func(row export.DPORow) error { return enc.Encode(row) })
			} else {
				export.ScanSFT(p, func(row export.SFTRow) error { return enc.Encode(row) })
			}
			texts[p+" (rows)"] = b.String()
		}
	}
	for where, text := range texts {
		// Whitespace or punctuation put into the secret does not hide it,
		// nor does a JSON escape (\n): its letters and digits in order are
		// found.
		sk, unescaped := skeleton(text), skeleton(jsonEscapes.Replace(text))
		for _, sec := range s.secrets() {
			if strings.Contains(text, sec) || strings.Contains(sk, skeleton(sec)) || strings.Contains(unescaped, skeleton(sec)) {
				return fmt.Sprintf("%s holds the secret (as %q)", where, sec)
			}
		}
	}
	return ""
}

// jsonEscapes turns the escapes of JSON text that stand for whitespace
// and punctuation into a space, so that a secret split by them is seen.
var jsonEscapes = strings.NewReplacer(`\n`, " ", `\r`, " ", `\t`, " ", `\"`, " ", `\\`, " ", `\/`, " ", `\u0020`, " ", `\u002d`, " ", `\u002e`, " ")

// skeleton is s's ASCII letters and digits, lower case.
func skeleton(s string) string {
	var b strings.Builder
	for _, c := range []byte(strings.ToLower(s)) {
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// fifo makes a named pipe nobody writes to: a command that opens it as a
// plain file waits for good.
func (s *sandbox) fifo(rel string) {
	s.t.Helper()
	p := s.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// llmServer is a hostile OpenAI-compatible endpoint: answer writes each
// response, given the key the request carried. It returns the base URL.
func (s *sandbox) llmServer(answer func(w http.ResponseWriter, key string)) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		answer(w, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	s.t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// completion is a chat completion whose reply is content.
func completion(content string) []byte {
	raw, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
	return raw
}

// split is a secret with whitespace and punctuation put in and taken
// out, as a server might echo it.
func split(secret string) string {
	h := len(secret) / 2
	return strings.ReplaceAll(secret[:h], "-", " ") + " -\n" + secret[h:h+4] + "." + secret[h+4:]
}

// listening is the address a synth server prints when it is ready.
var listening = regexp.MustCompile(`listening on http://([0-9.:]+)`)

// runServer starts a synth server in the working directory, waits until
// it listens, calls during with its address, then stops it with SIGTERM
// as a user would. A server that does not start or stop in time fails
// the case.
func (s *sandbox) runServer(during func(t *testing.T, s *sandbox, addr string), args ...string) result {
	s.t.Helper()
	cmd := exec.Command(s.bin, args...)
	cmd.Dir = filepath.Join(s.root, "work")
	cmd.Env = s.env()
	out, err := cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	var stdout bytes.Buffer
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			stdout.WriteString(sc.Text() + "\n")
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				lines <- m[1]
			}
		}
		close(lines)
	}()
	select {
	case addr, ok := <-lines:
		if !ok {
			cmd.Wait()
			s.t.Fatalf("synth %s did not start: %s", strings.Join(args, " "), errb.String())
		}
		during(s.t, s, addr)
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		s.t.Fatalf("synth %s did not start listening within a minute", strings.Join(args, " "))
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		s.t.Fatalf("synth %s did not stop on SIGTERM", strings.Join(args, " "))
	}
	r := result{stdout: stdout.String(), stderr: errb.String()}
	if ee, ok := werr.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	}
	return r
}

// dripped posts a body of n bytes to url one byte a second, and reports
// how many the server took before it cut the connection off (n when it
// never did).
func dripped(url string, n int) int {
	u := strings.TrimPrefix(url, "http://")
	host, path, _ := strings.Cut(u, "/")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		return 0
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /%s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, host, n)
	// The server's answer, a 408 or a close, ends the drip.
	cut := make(chan struct{})
	go func() {
		io.Copy(io.Discard, conn)
		close(cut)
	}()
	for i := range n {
		select {
		case <-cut:
			return i
		default:
		}
		if _, err := conn.Write([]byte(" ")); err != nil {
			return i
		}
		time.Sleep(time.Second)
	}
	return n
}
