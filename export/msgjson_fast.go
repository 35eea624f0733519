package export

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/synth-data/synth/record"
)

// parseCanonical decodes b when it is exactly what AppendMessageJSON
// writes: the keys in its order, each once, no whitespace. Reading a
// release back (dedup rewrites whole chunks) decoded every message
// through a map and a second pass per key, most of that pass's time.
// ok is false for anything else, including text that is not even JSON;
// ParseMessageJSON then decodes it the general way and words the error.
// Where ok is true, m is what the general way gives.
func parseCanonical(b []byte) (m record.Message, ok bool) {
	p := canonParser{b: b}
	if !p.lit(`{"role":`) || !p.str(&m.Role) || m.Role == "" || !p.lit(`,"content":`) || !p.str(&m.Content) {
		return record.Message{}, false
	}
	if p.lit(`,"reasoning_content":`) && !p.str(&m.ReasoningContent) {
		return record.Message{}, false
	}
	if p.lit(`,"tool_calls":[`) {
		for {
			var tc record.ToolCall
			if !p.lit(`{"id":`) || !p.str(&tc.ID) || !p.lit(`,"type":`) || !p.str(&tc.Type) ||
				!p.lit(`,"function":{"name":`) || !p.str(&tc.Function.Name) || !p.lit(`,"arguments":`) ||
				!p.arguments(&tc.Function.Arguments) || !p.lit(`}}`) {
				return record.Message{}, false
			}
			m.ToolCalls = append(m.ToolCalls, tc)
			if p.lit(`]`) {
				break
			}
			if !p.lit(`,`) {
				return record.Message{}, false
			}
		}
	}
	if p.lit(`,"tool_call_id":`) && !p.str(&m.ToolCallID) {
		return record.Message{}, false
	}
	if p.lit(`,"name":`) && !p.str(&m.Name) {
		return record.Message{}, false
	}
	// The one weight written is an assistant's 0 (record.Message.Weight);
	// any other goes the general way, which checks it.
	if p.lit(`,"weight":0`) {
		if m.Role != "assistant" {
			return record.Message{}, false
		}
		m.Weight = new(int)
	}
	if !p.lit(`}`) || p.i != len(p.b) {
		return record.Message{}, false
	}
	return m, true
}

type canonParser struct {
	b []byte
	i int
}

// lit consumes s if the input continues with it.
func (p *canonParser) lit(s string) bool {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// str decodes a JSON string as encoding/json does, for the strings it
// can do so without a doubt: valid UTF-8, and no \u escape of a
// surrogate half (encoding/json pairs or replaces those).
func (p *canonParser) str(dst *string) bool {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	start := p.i + 1
	j := start
	for j < len(p.b) {
		c := p.b[j]
		switch {
		case c == '"':
			raw := p.b[start:j]
			if !utf8.Valid(raw) {
				return false
			}
			*dst = string(raw)
			p.i = j + 1
			return true
		case c == '\\':
			return p.escaped(start, dst)
		case c < 0x20:
			return false
		}
		j++
	}
	return false
}

// escaped decodes the string opening at start (just past its quote),
// which holds an escape.
func (p *canonParser) escaped(start int, dst *string) bool {
	out := make([]byte, 0, 64)
	j := start
	for j < len(p.b) {
		c := p.b[j]
		switch {
		case c == '"':
			if !utf8.Valid(out) {
				return false
			}
			*dst = string(out)
			p.i = j + 1
			return true
		case c < 0x20:
			return false
		case c != '\\':
			out = append(out, c)
			j++
			continue
		}
		if j+1 >= len(p.b) {
			return false
		}
		switch p.b[j+1] {
		case '"', '\\', '/':
			out = append(out, p.b[j+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if j+6 > len(p.b) {
				return false
			}
			r, ok := hex4(p.b[j+2 : j+6])
			if !ok || (r >= 0xd800 && r < 0xe000) {
				return false
			}
			out = utf8.AppendRune(out, r)
			j += 6
			continue
		default:
			return false
		}
		j += 2
	}
	return false
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// arguments decodes a call's stored arguments as argumentsText does: an
// object is its own text, a string its value.
func (p *canonParser) arguments(dst *string) bool {
	if p.i >= len(p.b) {
		return false
	}
	if p.b[p.i] == '"' {
		return p.str(dst)
	}
	if p.b[p.i] != '{' {
		return false
	}
	// Find the object's closing brace, skipping strings; json.Valid then
	// holds the text to what the general decoder accepts.
	depth, inStr := 0, false
	for j := p.i; j < len(p.b); j++ {
		c := p.b[j]
		if inStr {
			switch c {
			case '\\':
				j++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				obj := p.b[p.i : j+1]
				if !json.Valid(obj) {
					return false
				}
				*dst = string(obj)
				p.i = j + 1
				return true
			}
		}
	}
	return false
}
