package tools

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// decodesAsEncodingJSON holds DecodeJSON and DecodeObject, on the text as
// a string and as bytes, to json.Unmarshal: the same value, and an error
// exactly when it gives one.
func decodesAsEncodingJSON(t *testing.T, s string) {
	t.Helper()
	var want any
	wantErr := json.Unmarshal([]byte(s), &want)
	for _, got := range []struct {
		v   any
		err error
	}{pair(DecodeJSON(s)), pair(DecodeJSON([]byte(s)))} {
		if (got.err == nil) != (wantErr == nil) || !reflect.DeepEqual(got.v, want) {
			t.Fatalf("DecodeJSON(%q) = %#v, %v; json.Unmarshal: %#v, %v", s, got.v, got.err, want, wantErr)
		}
	}
	var wantObj map[string]any
	wantErr = json.Unmarshal([]byte(s), &wantObj)
	for _, in := range []any{s, []byte(s)} {
		var obj map[string]any
		var err error
		if b, ok := in.([]byte); ok {
			obj, err = DecodeObject(b)
		} else {
			obj, err = DecodeObject(s)
		}
		if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(obj, wantObj) {
			t.Fatalf("DecodeObject(%q) = %#v, %v; json.Unmarshal: %#v, %v", s, obj, err, wantObj, wantErr)
		}
	}
}

func pair(v any, err error) struct {
	v   any
	err error
} {
	return struct {
		v   any
		err error
	}{v, err}
}

func TestDecodeJSONIsEncodingJSON(t *testing.T) {
	for _, s := range []string{
		``, ` `, `null`, `true`, `false`, `nul`, `truex`, `0`, `-0`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `1E-2`, `-12.5e3`,
		`1e400`, `-1e400`, `[1e400, 2]`, `{"a": 1e400, "b": "x"}`, `123456789012345678901234567890`,
		`""`, `"plain"`, `"tab\there"`, "\"raw\ttab\"", `"\u00e9\u2028"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`,
		`"\ud83d\u0041"`, `"\ude00\ud83d"`, `"\uDC00"`, `"\uzzzz"`, `"\u12"`, `"\'"`, `"\/\b\f\n\r\"\\"`, "\"bad \xff\xfe utf8\"",
		"\"\xed\xa0\x80\"", "\"\xef\xbf\xbd\"", `"unterminated`, `"a\`,
		`[]`, `[ ]`, `[1,]`, `[,1]`, `[1 2]`, `[1,[2,[3,{}]]]`, `{}`, `{ }`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1,"a":2}`,
		`{"a":{"b":[true,false,null,"x",-1.5]}}`, ` {"x": [ 1 , 2 ] } `, `{"x":1} x`, `[1]]`, "\v1", "1\u00a0",
		`{"\u0000":"\u001f"}`, `{"a":"b"`, `[`, `{`, `{"a":`, strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
	} {
		decodesAsEncodingJSON(t, s)
	}
}

func TestDecodeJSONRandomValues(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		b, err := json.Marshal(randomValue(r, 0))
		if err != nil {
			continue
		}
		decodesAsEncodingJSON(t, string(b))
		// A cut or a flipped byte is mostly a syntax error.
		if len(b) > 1 {
			decodesAsEncodingJSON(t, string(b[:r.IntN(len(b))]))
			c := []byte(string(b))
			c[r.IntN(len(c))] = byte(r.IntN(256))
			decodesAsEncodingJSON(t, string(c))
		}
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,"\ud83d\ude00",null]}`, "\"\xff\"", `1e400`, `[1,2`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		decodesAsEncodingJSON(t, s)
	})
}
