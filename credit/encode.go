package credit

import (
	"strconv"

	"github.com/synth-data/synth/tools"
)

// MarshalJSON writes the labels as encoding/json would from their tags,
// byte for byte, without reflection: every row of a run is labelled and
// written, and reflection took longer than the labelling.
func (l Labels) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 256+160*len(l.Turns))
	b = append(b, `{"chain_length":`...)
	b = strconv.AppendInt(b, int64(l.ChainLength), 10)
	b = append(b, `,"progress":`...)
	b = strconv.AppendInt(b, int64(l.Progress), 10)
	b = append(b, `,"coverage":`...)
	b = appendFloat(b, l.Coverage)
	b = append(b, `,"pivotal":`...)
	b = strconv.AppendInt(b, int64(l.Pivotal), 10)
	b = append(b, `,"correcting":`...)
	b = strconv.AppendInt(b, int64(l.Correcting), 10)
	b = append(b, `,"mistake_from":`...)
	b = strconv.AppendInt(b, int64(l.MistakeFrom), 10)
	b = append(b, `,"outcome":`...)
	if l.Outcome == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*l.Outcome), 10)
	}
	b = append(b, `,"steps":`...)
	b = appendList(b, l.Steps == nil, len(l.Steps), func(b []byte, i int) []byte {
		s := l.Steps[i]
		b = append(b, `{"message":`...)
		b = strconv.AppendInt(b, int64(s.Message), 10)
		b = append(b, `,"by":`...)
		return append(appendString(b, s.By), '}')
	})
	b = append(b, `,"turns":`...)
	b = appendList(b, l.Turns == nil, len(l.Turns), func(b []byte, i int) []byte { return l.Turns[i].appendJSON(b) })
	return append(b, '}'), nil
}

func (t Turn) appendJSON(b []byte) []byte {
	b = append(b, `{"message":`...)
	b = strconv.AppendInt(b, int64(t.Message), 10)
	b = append(b, `,"class":`...)
	b = appendString(b, t.Class)
	b = append(b, `,"gold":`...)
	b = appendString(b, t.Gold)
	b = append(b, `,"on_chain":`...)
	b = strconv.AppendBool(b, t.OnChain)
	b = append(b, `,"serves":`...)
	b = strconv.AppendInt(b, int64(t.Serves), 10)
	b = append(b, `,"progress":`...)
	b = strconv.AppendInt(b, int64(t.Progress), 10)
	b = append(b, `,"calls":`...)
	b = appendList(b, t.Calls == nil, len(t.Calls), func(b []byte, i int) []byte {
		c := t.Calls[i]
		b = append(b, `{"tool":`...)
		b = appendString(b, c.Tool)
		b = append(b, `,"kind":`...)
		b = appendString(b, c.Kind)
		b = append(b, `,"action":`...)
		b = strconv.AppendInt(b, int64(c.Action), 10)
		b = append(b, `,"args":`...)
		b = appendList(b, c.Args == nil, len(c.Args), func(b []byte, j int) []byte {
			a := c.Args[j]
			b = append(b, `{"path":`...)
			b = appendString(b, a.Path)
			b = append(b, `,"source":`...)
			b = appendString(b, a.Source)
			b = append(b, `,"message":`...)
			b = strconv.AppendInt(b, int64(a.Message), 10)
			b = append(b, `,"at":`...)
			return append(appendString(b, a.At), '}')
		})
		return append(b, '}')
	})
	return append(b, '}')
}

// appendList writes null for a nil slice and [...] otherwise, as
// encoding/json does.
func appendList(b []byte, isNil bool, n int, elem func([]byte, int) []byte) []byte {
	if isNil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, i)
	}
	return append(b, ']')
}

// appendString writes s as encoding/json does, HTML escapes included.
func appendString(b []byte, s string) []byte { return tools.AppendString(b, s, true) }

// appendFloat writes a float as encoding/json does (nothing for NaN or
// an infinity, which the labels never hold).
func appendFloat(b []byte, f float64) []byte {
	b, _ = tools.AppendJSON(b, f)
	return b
}
