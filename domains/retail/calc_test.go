package retail

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestCalculate(t *testing.T) {
	for _, c := range []struct {
		expr, want, err string
	}{
		{"2 + 2", "4", ""},
		{"2+3*4", "14", ""},
		{"(2+3)*4", "20", ""},
		{"10 / 4", "2.5", ""},
		{"1 / 3", "0.33", ""},
		{"2 / 3", "0.67", ""},
		{"-5 + 2", "-3", ""},
		{"--5", "5", ""},
		{"-(1.5 + 1.5) * -2", "6", ""},
		{"+7", "7", ""},
		{".5 + 5.", "5.5", ""},
		{"129.99 - 45.5", "84.49", ""},
		{"0.1 + 0.2", "0.3", ""},
		{"8 - 4 - 2", "2", ""},
		{"16 / 4 / 2", "2", ""},
		{" ( ( 1 ) ) ", "1", ""},
		{"-0.001", "0", ""},
		{"1e3", "", "unexpected 'e'"},
		{"", "", "unexpected end"},
		{"   ", "", "unexpected end"},
		{"2 +", "", "unexpected end"},
		{"2 2", "", "unexpected '2'"},
		{"(1 + 2", "", "missing ')'"},
		{"1 + 2)", "", "unexpected ')'"},
		{"()", "", "unexpected ')'"},
		{"1..2", "", "malformed number"},
		{".", "", "malformed number"},
		{"2 ** 3", "", "unexpected '*'"},
		{"7 // 2", "", "unexpected '/'"},
		{"1 / 0", "", "division by zero"},
		{"1 / (2 - 2)", "", "division by zero"},
		{"abs(1)", "", "unexpected 'a'"},
		{"__import__('os')", "", "unexpected '_'"},
		{"1,000", "", "unexpected ','"},
		{"$5", "", "unexpected '$'"},
		{strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), "", "nested more than"},
		{strings.Repeat("-", 100) + "1", "", "nested more than"},
		{strings.Repeat("9", 400) + "*" + strings.Repeat("9", 400), "", "longer than"},
		{strings.Repeat("9", 300) + "*" + strings.Repeat("9", 100), "", "not a finite number"},
	} {
		got, err := Calculate(c.expr)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("Calculate(%q) = %q, %v; want %q", c.expr, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("Calculate(%q) = %q, %v; want an error containing %q", c.expr, got, err, c.err)
		}
	}
}

func FuzzCalculate(f *testing.F) {
	for _, s := range []string{"2 + 2", "(1.5 * -3) / 7", "((", "1/0", "-.5--.5", "9" + strings.Repeat("*9", 200), "1e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		got, err := Calculate(expr)
		if err != nil {
			if got != "" {
				t.Errorf("Calculate(%q) returned %q with error %v", expr, got, err)
			}
			return
		}
		v, perr := strconv.ParseFloat(got, 64)
		if perr != nil || math.IsInf(v, 0) || math.IsNaN(v) || v != RoundCents(v) {
			t.Errorf("Calculate(%q) = %q, not a finite number rounded to cents", expr, got)
		}
	})
}
