package tools

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

func sameAsEncodingJSON(t *testing.T, v any) {
	t.Helper()
	got, gotErr := Marshal(v)
	want, wantErr := json.Marshal(v)
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("%#v: error %v, json.Marshal's %v", v, gotErr, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%#v:\n got %s\nwant %s", v, got, want)
	}
}

func TestMarshalIsEncodingJSON(t *testing.T) {
	type named map[string]any
	self := map[string]any{}
	self["me"] = self
	for _, v := range []any{
		nil, true, false, "", "a<b>&c\"\\\n\r\t\b\f\x00\x1f\x7f é \u2028\u2029 \xff\xfe 😀",
		0.0, math.Copysign(0, -1), 1.0, -1.5, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, 5e-324, math.MaxFloat64,
		math.NaN(), math.Inf(1), 3, int64(-7), json.Number(""), json.Number("1.5e+3"), json.Number("01"), json.Number("x"),
		map[string]any(nil), []any(nil), map[string]any{}, []any{}, map[string]string(nil), []string(nil),
		map[string]any{"b": 1.0, "a": []any{"x", nil, map[string]any{"<": ">"}}, "é": map[string]string{"z": "y", "a": "b"}, "s": []string{"q"}},
		map[string]any{"n": named{"a": 1}}, []any{struct{ A int }{1}}, map[string]any{"f": float32(1.1)},
		self,
	} {
		sameAsEncodingJSON(t, v)
	}
}

func randomValue(r *rand.Rand, depth int) any {
	n := r.IntN(12)
	if depth > 4 && n >= 8 {
		n = r.IntN(8)
	}
	switch n {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return randomString(r)
	case 3:
		return math.Float64frombits(r.Uint64())
	case 4:
		return float64(r.IntN(2000)-1000) / 8
	case 5:
		return r.Int64() - r.Int64()
	case 6:
		return int(r.IntN(1000))
	case 7:
		return json.Number(randomString(r))
	case 8, 9:
		m := map[string]any{}
		for range r.IntN(5) {
			m[randomString(r)] = randomValue(r, depth+1)
		}
		return m
	default:
		l := make([]any, r.IntN(5))
		for i := range l {
			l[i] = randomValue(r, depth+1)
		}
		return l
	}
}

func randomString(r *rand.Rand) string {
	const alphabet = "ab<>&\"\\\n\x00\x1f\x7f0123456789.e-+é\u2028😀\xff"
	rs := []rune(alphabet)
	b := []byte{}
	for range r.IntN(8) {
		if r.IntN(10) == 0 {
			b = append(b, byte(r.IntN(256)))
			continue
		}
		b = append(b, string(rs[r.IntN(len(rs))])...)
	}
	return string(b)
}

func TestMarshalRandomValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		sameAsEncodingJSON(t, randomValue(r, 0))
	}
}

func FuzzMarshalString(f *testing.F) {
	f.Add("a<b>\u2028\xff")
	f.Add("1.5e+3")
	f.Fuzz(func(t *testing.T, s string) {
		sameAsEncodingJSON(t, s)
		sameAsEncodingJSON(t, json.Number(s))
		sameAsEncodingJSON(t, map[string]any{s: []any{s}})
	})
}

// TestAppendStringWithoutHTML: without HTML escapes, a string is what an
// Encoder with SetEscapeHTML(false) writes (the export rows' form).
func TestAppendStringWithoutHTML(t *testing.T) {
	for _, s := range []string{"", "plain", "<tag> & \"q\"", "\b\f\n\r\t\x01\x1f", "\u2028\u2029", "bad \xff utf8", "é 😀"} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := AppendString(nil, s, false); !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
	}
}
