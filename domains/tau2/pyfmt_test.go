package tau2

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestPyFloat(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		{1, "1.0"}, {0.1, "0.1"}, {math.Copysign(0, -1), "-0.0"}, {0, "0.0"}, {1e16, "1e+16"}, {1234567890123456, "1234567890123456.0"},
		{0.0001, "0.0001"}, {0.00001, "1e-05"}, {1.5e-7, "1.5e-07"}, {1.2345678901234568e+17, "1.2345678901234568e+17"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"}, {1e100, "1e+100"}, {-2.5, "-2.5"}, {100, "100.0"},
		{5e-324, "5e-324"}, {math.MaxFloat64, "1.7976931348623157e+308"},
	}
	for _, c := range cases {
		if got := pyFloat(c.f); got != c.want {
			t.Errorf("pyFloat(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestPyRound2(t *testing.T) {
	cases := []struct{ in, want float64 }{
		{2.675, 2.67}, {0.125, 0.12}, {0.375, 0.38}, {1.005, 1.0}, {-0.001, math.Copysign(0, -1)}, {1e300, 1e300}, {3.14159, 3.14},
	}
	for _, c := range cases {
		got := pyRound2(c.in)
		if got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("pyRound2(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestPyFloatLikePython compares repr() and round(x, 2) with Python's on
// random doubles of every magnitude.
func TestPyFloatLikePython(t *testing.T) {
	needPython(t)
	r := rand.New(rand.NewPCG(1, 2))
	var xs []float64
	for range 5000 {
		var x float64
		switch r.IntN(3) {
		case 0:
			x = math.Float64frombits(r.Uint64())
		case 1:
			x = float64(r.IntN(1000000)) / 1000 * math.Pow(10, float64(r.IntN(30)-15))
		default:
			x = float64(r.IntN(100000)) / 200 // ties and near-ties at two decimals
		}
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			xs = append(xs, x)
		}
	}
	var in strings.Builder
	for _, x := range xs {
		in.WriteString(strconv.FormatFloat(x, 'x', -1, 64) + "\n")
	}
	cmd := exec.Command("python3", "-c", `import sys, json
out = []
for line in sys.stdin:
    x = float.fromhex(line.strip())
    out.append([repr(x), repr(round(x, 2))])
print(json.dumps(out))`)
	cmd.Stdin = strings.NewReader(in.String())
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var want [][2]string
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&want); err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		if got := pyFloat(x); got != want[i][0] {
			t.Errorf("repr(%s) = %s, Go wrote %s", want[i][0], want[i][0], got)
		}
		if got := pyFloat(pyRound2(x)); got != want[i][1] {
			t.Errorf("round(%s, 2) = %s, Go got %s", want[i][0], want[i][1], got)
		}
	}
}

func TestPyStrAndTruncate(t *testing.T) {
	cases := []struct{ in, want string }{
		{"abc", "'abc'"}, {"a'b", `"a'b"`}, {`a"b`, `'a"b'`}, {`a'b"c`, `'a\'b"c'`},
		{"\t\x7f\u200b😀\x00\\", `'\t\x7f\u200b😀\x00\\'`}, {"é", "'é'"}, {"\u00a0", `'\xa0'`},
	}
	for _, c := range cases {
		if got := pyStr(c.in); got != c.want {
			t.Errorf("pyStr(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	trunc := []struct{ in, want string }{
		{pyStr(strings.Repeat("x", 100)), "'xxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxx'"},
		{pyStr(strings.Repeat("é", 40)), "'éééééééééééé...ééééééééééé'"},
		{pyStr(strings.Repeat("日本", 20)), "'日本日本日本日本...本日本日本日本'"},
		{"{'" + strings.Repeat("€", 30) + "': 1}", "{'€€€€€€€...€€€€€€': 1}"},
		{pyStr(strings.Repeat("a", 48)), pyStr(strings.Repeat("a", 48))},
	}
	for _, c := range trunc {
		if got := truncateRepr(c.in); got != c.want {
			t.Errorf("truncateRepr(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestPyLower(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Noah", "noah"}, {"ÉMILE", "émile"}, {"İstanbul", "i̇stanbul"}, {"ΟΔΟΣ", "οδος"}, {"ΣΑ", "σα"}, {"abc", "abc"},
	}
	for _, c := range cases {
		if got := pyLower(c.in); got != c.want {
			t.Errorf("pyLower(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPyRepr(t *testing.T) {
	v := map[string]any{"flight_number": "HAT001", "b": []any{json.Number("1"), json.Number("2.0"), json.Number("1e20"), nil, true}, "a": map[string]any{}}
	got := pyRepr(v, []string{"flight_number", "date"})
	want := "{'flight_number': 'HAT001', 'a': {}, 'b': [1, 2.0, 1e+20, None, True]}"
	if got != want {
		t.Errorf("pyRepr = %s, want %s", got, want)
	}
}
