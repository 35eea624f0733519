package termtext

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Clean returns s with every unsafe character escaped.
func Clean(s string) string {
	if isSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case unsafe(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isSafe is the fast path: most text has nothing to escape.
func isSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return isSafeUTF8(s[i:])
		}
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func isSafeUTF8(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || unsafe(r) {
			return false
		}
		i += size
	}
	return true
}

// unsafe reports whether a terminal could act on r instead of showing it.
func unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f: // C0 controls (ESC, BEL, CR, BS, ...) and DEL
		return true
	case r >= 0x80 && r < 0xa0: // C1 controls (CSI is U+009B)
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f: // bidirectional marks
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidirectional embeddings, overrides, isolates
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}

// Writer returns a writer that escapes what it writes to w. Each Write is
// cleaned on its own, so a character split across two writes is escaped
// as the invalid bytes it then is; synth prints whole lines.
func Writer(w io.Writer) io.Writer { return &writer{w} }

type writer struct{ w io.Writer }

func (c *writer) Write(p []byte) (int, error) {
	s := string(p)
	if isSafe(s) {
		return c.w.Write(p)
	}
	if _, err := io.WriteString(c.w, Clean(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}
