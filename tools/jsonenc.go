package tools

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Marshal is json.Marshal, byte for byte and error for error. Records,
// arguments and results are generic JSON (maps, lists, strings, numbers),
// and encoding/json's reflection and per-map key sorting were a tenth of
// a run's CPU (state hashes, rendered results, ground-truth arguments):
// those values are encoded here directly. Anything else, and anything
// json.Marshal would refuse (NaN, an invalid json.Number, deep nesting),
// goes to json.Marshal itself, so its output and errors are unchanged.
func Marshal(v any) ([]byte, error) {
	// Encoded on the stack and copied once at its size: grown from a
	// small buffer, a tool result was allocated about twice over.
	var stack [4 << 10]byte
	if b, ok := AppendJSON(stack[:0], v); ok {
		return bytes.Clone(b), nil
	}
	return json.Marshal(v)
}

// MarshalUnescaped is json.Marshal without HTML escaping, as an Encoder
// with SetEscapeHTML(false) writes it: request bodies and rows are data,
// not HTML, and prompts are full of tags (\u003c would only bloat them).
func MarshalUnescaped(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// AppendJSON appends what json.Marshal writes for v, when v is made of
// the generic JSON values (nil, bool, string, float64, int, int64,
// json.Number, map[string]any, []any, map[string]string, []string) and
// Appenders. ok is false, and dst holds a partial encoding, for any
// other value or one json.Marshal would refuse.
func AppendJSON(dst []byte, v any) (out []byte, ok bool) {
	return appendPlain(dst, v, 0)
}

// maxPlainDepth bounds the recursion; json.Marshal, taking over deeper
// values, also finds their cycles.
const maxPlainDepth = 64

func appendPlain(dst []byte, v any, depth int) ([]byte, bool) {
	if depth > maxPlainDepth {
		return dst, false
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case string:
		return AppendString(dst, x, true), true
	case bool:
		return strconv.AppendBool(dst, x), true
	case float64:
		return appendFloat(dst, x)
	case int:
		return strconv.AppendInt(dst, int64(x), 10), true
	case int64:
		return strconv.AppendInt(dst, x, 10), true
	case json.Number:
		s := string(x)
		if s == "" {
			s = "0"
		}
		if !validNumber(s) {
			return dst, false
		}
		return append(dst, s...), true
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), true
		}
		var buf [16]string
		keys := sortedKeys(buf[:0], x)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, k, true)
			dst = append(dst, ':')
			var ok bool
			if dst, ok = appendPlain(dst, x[k], depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	case []any:
		if x == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendPlain(dst, e, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case map[string]string:
		if x == nil {
			return append(dst, "null"...), true
		}
		var buf [16]string
		keys := sortedKeys(buf[:0], x)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, k, true)
			dst = append(dst, ':')
			dst = AppendString(dst, x[k], true)
		}
		return append(dst, '}'), true
	case []string:
		if x == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, e, true)
		}
		return append(dst, ']'), true
	case Appender:
		// Through a buffer of its own: dst passed to an unknown method
		// would escape, and with it the stack buffer a record's hash is
		// built in.
		b, ok := x.AppendJSON(nil)
		return append(dst, b...), ok
	}
	return dst, false
}

// Appender is a value that writes its own JSON: what json.Marshal writes
// for it, or ok false for json.Marshal to take over. A handler's typed
// result implements it to skip encoding/json's reflection.
type Appender interface {
	AppendJSON(dst []byte) ([]byte, bool)
}

func sortedKeys[V any](keys []string, m map[string]V) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendFloat formats as encoding/json does: like ES6, %f between 1e-6
// and 1e21, else %e without exponent padding.
func appendFloat(dst []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

// AppendString quotes s as json.Marshal does: invalid UTF-8 as \ufffd,
// U+2028 and U+2029 escaped, and <, > and & escaped when escapeHTML (as
// json.Marshal always does). Without it, as an Encoder with
// SetEscapeHTML(false) writes: rows are data, not HTML, and prompts are
// full of tags.
func AppendString(dst []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!escapeHTML || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// validNumber is the JSON number grammar (RFC 8259), as json.Marshal
// checks a json.Number.
func validNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}
