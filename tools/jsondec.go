package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// DecodeJSON is json.Unmarshal(data, &v) for a v of type any, value for
// value: objects as map[string]any (a repeated key's last value kept),
// arrays as []any, numbers as float64, invalid UTF-8 and lone surrogates
// as U+FFFD. Tool results and call arguments are decoded many times a
// dialogue (the agent, the verifier, the labels), and encoding/json's
// validating pass and reflection were a twentieth of a run's CPU.
//
// As with json.Unmarshal, a syntax error decodes nothing (v is nil), and
// a number too large for a float64 decodes as nil while the rest is
// decoded, the error returned with the value. A string input's strings
// share its memory.
func DecodeJSON[T ~string | ~[]byte](data T) (any, error) {
	d := decoder[T]{s: data}
	v, err := d.top()
	if err != nil {
		return nil, err
	}
	return v, d.typeErr
}

// DecodeObject is json.Unmarshal(data, &m) for a nil m of type
// map[string]any: nil for JSON null, and nil with an error for a value
// that is no object.
func DecodeObject[T ~string | ~[]byte](data T) (map[string]any, error) {
	d := decoder[T]{s: data}
	v, err := d.top()
	if err != nil {
		return nil, err
	}
	switch m := v.(type) {
	case map[string]any:
		return m, d.typeErr
	case nil:
		if d.typeErr == nil {
			return nil, nil
		}
		// A top-level number out of range: json.Unmarshal names the
		// number, not the map.
		return nil, d.typeErr
	}
	return nil, &json.UnmarshalTypeError{Value: jsonKind(v), Type: reflect.TypeFor[map[string]any](), Offset: int64(d.first + 1)}
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "bool"
	}
	return "number"
}

// maxDecodeDepth is encoding/json's nesting limit.
const maxDecodeDepth = 10000

type decoder[T ~string | ~[]byte] struct {
	s       T
	i       int
	depth   int
	first   int // offset of the top-level value
	typeErr error
}

func (d *decoder[T]) top() (any, error) {
	d.space()
	d.first = d.i
	v, ok := d.value()
	if !ok {
		return nil, d.syntax()
	}
	d.space()
	if d.i != len(d.s) {
		return nil, d.syntax()
	}
	return v, nil
}

func (d *decoder[T]) syntax() error {
	if d.i >= len(d.s) {
		return errors.New("unexpected end of JSON input")
	}
	return fmt.Errorf("invalid JSON: unexpected %q at offset %d", rune(d.s[d.i]), d.i)
}

func (d *decoder[T]) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder[T]) value() (any, bool) {
	if d.i >= len(d.s) {
		return nil, false
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		s, ok := d.str()
		return s, ok
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	}
	return nil, false
}

func (d *decoder[T]) literal(word string) bool {
	if len(d.s)-d.i < len(word) || string(d.s[d.i:d.i+len(word)]) != word {
		return false
	}
	d.i += len(word)
	return true
}

func (d *decoder[T]) object() (any, bool) {
	if d.depth++; d.depth > maxDecodeDepth {
		return nil, false
	}
	d.i++ // {
	m := make(map[string]any)
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		d.depth--
		return m, true
	}
	for {
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		m[k] = v
		end, ok := d.after('}')
		if !ok {
			return nil, false
		}
		if end {
			return m, true
		}
	}
}

func (d *decoder[T]) array() (any, bool) {
	if d.depth++; d.depth > maxDecodeDepth {
		return nil, false
	}
	d.i++ // [
	a := make([]any, 0)
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		d.depth--
		return a, true
	}
	for {
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		a = append(a, v)
		end, ok := d.after(']')
		if !ok {
			return nil, false
		}
		if end {
			return a, true
		}
	}
}

// after reads what follows an object's member or an array's element: a
// comma (end false) or the closing byte (end true); ok is false for
// anything else.
func (d *decoder[T]) after(closing byte) (end, ok bool) {
	d.space()
	if d.i >= len(d.s) {
		return false, false
	}
	switch d.s[d.i] {
	case ',':
		d.i++
		d.space()
		return false, true
	case closing:
		d.i++
		d.depth--
		return true, true
	}
	return false, false
}

// number scans the JSON number grammar and converts as encoding/json
// does for an any: a float64, or nil and a saved error out of range.
func (d *decoder[T]) number() (any, bool) {
	start := d.i
	if d.s[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.s) && d.s[d.i] == '0':
		d.i++
	case d.i < len(d.s) && '1' <= d.s[d.i] && d.s[d.i] <= '9':
		d.digits()
	default:
		return nil, false
	}
	if d.i < len(d.s) && d.s[d.i] == '.' {
		d.i++
		if !d.digits() {
			return nil, false
		}
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		d.i++
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if !d.digits() {
			return nil, false
		}
	}
	lit := string(d.s[start:d.i])
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		if d.typeErr == nil {
			d.typeErr = &json.UnmarshalTypeError{Value: "number " + lit, Type: reflect.TypeFor[float64](), Offset: int64(d.i)}
		}
		return nil, true
	}
	return f, true
}

// digits skips one or more decimal digits.
func (d *decoder[T]) digits() bool {
	start := d.i
	for d.i < len(d.s) && '0' <= d.s[d.i] && d.s[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}

// str decodes a string at d.i (its opening quote). One with no escape
// and valid UTF-8 is the input's own bytes.
func (d *decoder[T]) str() (string, bool) {
	d.i++ // "
	start := d.i
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			s := string(d.s[start:d.i])
			d.i++
			return s, true
		case c == '\\' || c < ' ':
			return d.unquote(start)
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, size := utf8.DecodeRuneInString(string(d.s[d.i:min(d.i+utf8.UTFMax, len(d.s))]))
			if r == utf8.RuneError && size == 1 {
				return d.unquote(start)
			}
			d.i += size
		}
	}
	return "", false
}

// unquote decodes the rest of a string that needs rewriting, from d.i;
// start is where its content began.
func (d *decoder[T]) unquote(start int) (string, bool) {
	b := make([]byte, 0, d.i-start+16)
	b = append(b, d.s[start:d.i]...)
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return string(b), true
		case c < ' ':
			return "", false
		case c == '\\':
			var ok bool
			if b, ok = d.escape(b); !ok {
				return "", false
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.i++
		default:
			r, size := utf8.DecodeRuneInString(string(d.s[d.i:min(d.i+utf8.UTFMax, len(d.s))]))
			d.i += size
			b = utf8.AppendRune(b, r)
		}
	}
	return "", false
}

// escape decodes the escape at d.i (its backslash) onto b.
func (d *decoder[T]) escape(b []byte) ([]byte, bool) {
	d.i++
	if d.i >= len(d.s) {
		return b, false
	}
	c := d.s[d.i]
	d.i++
	switch c {
	case '"', '\\', '/':
		return append(b, c), true
	case 'b':
		return append(b, '\b'), true
	case 'f':
		return append(b, '\f'), true
	case 'n':
		return append(b, '\n'), true
	case 'r':
		return append(b, '\r'), true
	case 't':
		return append(b, '\t'), true
	case 'u':
	default:
		return b, false
	}
	r := d.hex4(d.i)
	if r < 0 {
		return b, false
	}
	d.i += 4
	if utf16.IsSurrogate(r) {
		// A pair only when a low surrogate's escape follows; else the
		// lone one is U+FFFD and what follows is read on its own.
		if d.i+1 < len(d.s) && d.s[d.i] == '\\' && d.s[d.i+1] == 'u' {
			if r2 := d.hex4(d.i + 2); r2 >= 0 {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					d.i += 6
					return utf8.AppendRune(b, dec), true
				}
			}
		}
		r = utf8.RuneError
	}
	return utf8.AppendRune(b, r), true
}

// hex4 is the value of the four hex digits at i, -1 when they are not.
func (d *decoder[T]) hex4(i int) rune {
	if len(d.s)-i < 4 {
		return -1
	}
	var r rune
	for _, c := range []byte(string(d.s[i : i+4])) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
