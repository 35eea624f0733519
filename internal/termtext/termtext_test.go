package termtext

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text, ünïcödé, 日本語, → … ─ │", "plain text, ünïcödé, 日本語, → … ─ │"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab"},
		{"\x1b[2J\x1b]0;pwned\x07", `\x1b[2J\x1b]0;pwned\a`},
		{"over\rwrite", `over\rwrite`},
		{"back\bspace and del\x7f", `back\bspace and del\x7f`},
		{"c1 \u009b31m csi", `c1 \u009b31m csi`},
		{"invalid \x9b byte \xff", `invalid \x9b byte \xff`},
		{"trojan \u202eevil\u202c source \u2066x\u2069", `trojan \u202eevil\u202c source \u2066x\u2069`},
		{"nul\x00", `nul\x00`},
	}
	for _, c := range cases {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b)
	n, err := w.Write([]byte("id \x1b[31mred\n"))
	if err != nil || n != len("id \x1b[31mred\n") {
		t.Fatalf("Write: %d, %v", n, err)
	}
	if got := b.String(); got != "id \\x1b[31mred\n" {
		t.Errorf("wrote %q", got)
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "a\x1bb", "\u202e", "\xff\xfe", "ok\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Clean(%q) = %q is not valid UTF-8", s, out)
		}
		for _, r := range out {
			if unsafe(r) {
				t.Fatalf("Clean(%q) = %q keeps %U", s, out, r)
			}
		}
		if isSafe(s) && out != s {
			t.Fatalf("Clean changed safe text %q to %q", s, out)
		}
		if !strings.Contains(s, "\\") && isSafe(s) != (out == s) {
			t.Fatalf("Clean(%q): safe %v but output %q", s, isSafe(s), out)
		}
	})
}
