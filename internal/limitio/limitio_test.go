package limitio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readFile is ReadFileContext with a context that never ends.
func readFile(path string, limit int64) ([]byte, error) {
	return ReadFileContext(context.Background(), path, limit)
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	type readCase struct {
		name    string
		read    func(string, int64) ([]byte, error)
		path    string
		limit   int64
		want    string // the content, or a part of the error
		tooBig  bool
		failing bool
	}
	cases := []readCase{
		{"fits", readFile, small, 5, "12345", false, false},
		{"one byte over", readFile, small, 4, "larger than 4 bytes", true, true},
		{"a folder", readFile, dir, 10, "is a folder", false, true},
		{"a link is followed", readFile, link, 10, "12345", false, false},
		{"a link is refused", ReadRegular, link, 10, "not a regular file (a symbolic link)", false, true},
		{"regular over", ReadRegular, small, 2, "larger than 2 bytes", true, true},
		{"missing", ReadRegular, filepath.Join(dir, "none"), 2, "no such file", false, true},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases,
			readCase{"endless", readFile, "/dev/zero", 1 << 20, "/dev/zero is not a regular file or a pipe (a device)", false, true},
			readCase{"a device", ReadRegular, "/dev/zero", 1 << 20, "not a regular file (a device)", false, true})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.read(c.path, c.limit)
			if !c.failing {
				if err != nil || string(got) != c.want {
					t.Fatalf("got %q, %v; want %q", got, err, c.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			var tl *TooLarge
			if errors.As(err, &tl) != c.tooBig {
				t.Errorf("TooLarge %v, want %v", errors.As(err, &tl), c.tooBig)
			}
		})
	}
}

func TestReadLine(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\nend"
	br := bufio.NewReaderSize(strings.NewReader(in), 16)
	if l, err := ReadLine(br, 50); err != nil || string(l) != "short\n" {
		t.Fatalf("first line %q, %v", l, err)
	}
	if _, err := ReadLine(br, 50); !errors.Is(err, ErrLongLine) {
		t.Fatalf("a 101-byte line under a 50-byte limit: %v", err)
	}
	// The long line's rest is dropped: the next call reads the next line,
	// also when the overflow falls in the fragment holding the newline.
	if l, err := ReadLine(br, 50); err != io.EOF || string(l) != "end" {
		t.Fatalf("after the long line %q, %v", l, err)
	}
	br = bufio.NewReaderSize(strings.NewReader(strings.Repeat("y", 12)+"\nnext\n"), 16)
	if _, err := ReadLine(br, 10); !errors.Is(err, ErrLongLine) {
		t.Fatalf("a 13-byte line under a 10-byte limit: %v", err)
	}
	if l, err := ReadLine(br, 10); err != nil || string(l) != "next\n" {
		t.Fatalf("after a long line ending in its own fragment: %q, %v", l, err)
	}
	br = bufio.NewReaderSize(strings.NewReader("a\nbc"), 16)
	ReadLine(br, 10)
	if l, err := ReadLine(br, 10); err != io.EOF || string(l) != "bc" {
		t.Fatalf("last line %q, %v", l, err)
	}
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{strings.Repeat("x", 20<<20), 4, "xxxx… (20.0 MiB more)"},
		{"ab€cd", 3, "ab… (5 bytes more)"}, // never half a character
	} {
		if got := Clip(c.in, c.max); got != c.want {
			t.Errorf("Clip(%.20q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{700: "700 bytes", 1 << 20: "1 MiB", 256 << 20: "256 MiB", 3 << 29: "1.5 GiB", 1024: "1 KiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	good := map[string]int64{"8GiB": 8 << 30, "512MiB": 512 << 20, "64M": 64 << 20, "1.5G": 3 << 29, "1000": 1000, " 2 kb ": 2048, "1T": 1 << 40}
	for in, want := range good {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "8 GiBs", "-1G", "1e30", "NaN", "9000000T"} {
		if _, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) accepted", in)
		}
	}
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"8GiB", "1.5G", "0", "", "1e300T", "-0", "0x10M", "NaNG"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes(s)
		if err == nil && (n < 0 || n >= 1<<62) {
			t.Fatalf("ParseBytes(%q) = %d", s, n)
		}
	})
}

func FuzzReadLine(f *testing.F) {
	f.Add([]byte("a\nbb\n"), 2)
	f.Add([]byte("no newline"), 64)
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		if limit < 1 || limit > 1<<16 {
			return
		}
		br := bufio.NewReaderSize(bytes.NewReader(data), 16)
		for {
			line, err := ReadLine(br, limit)
			if len(line) > limit {
				t.Fatalf("a line of %d bytes under a limit of %d", len(line), limit)
			}
			if err != nil {
				return
			}
		}
	})
}
