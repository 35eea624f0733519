package tau2

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestCalculate(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"3131.1 + 4777.75 + 367.38", "8276.23"},
		{"2 * ((350 - 122) + (499 - 127))", "1200.0"},
		{"10/3", "3.33"},
		{"2.675", "2.67"}, // the binary value is below the tie
		{"0.125", "0.12"}, // an exact tie rounds to even
		{"-0.001", "-0.0"},
		{"7 // -2", "-4.0"},
		{"10**20", "1e+20"},
		{"2**1023", "8.98846567431158e+307"},
		{"   1+1", "2.0"},
		{".5", "0.5"},
		{"1.", "1.0"},
		{"00", "0.0"},
		{"0001.5", "1.5"},
		{"2 ** -2 ** 2", "0.06"},
		{"1e5", "Error: Invalid characters in expression"},
		{"", "Error: invalid syntax (<string>, line 0)"},
		{"2 +", "Error: invalid syntax (<string>, line 1)"},
		{"(2 + 3", "Error: '(' was never closed (<string>, line 1)"},
		{"2 + 3)", "Error: unmatched ')' (<string>, line 1)"},
		{"(1 2)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"},
		{"(1 2", "Error: '(' was never closed (<string>, line 1)"},
		{"(1 2 3", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"},
		{"1 2", "Error: invalid syntax (<string>, line 1)"},
		{"(1) 2", "Error: invalid syntax (<string>, line 1)"},
		{"1 2 07", "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"},
		{"(*1)", "Error: cannot use starred expression here (<string>, line 1)"},
		{"(**1)", "Error: cannot use double starred expression here (<string>, line 1)"},
		{"1/0", "Error: division by zero"},
		{"1.0/0", "Error: float division by zero"},
		{"1//0", "Error: integer division or modulo by zero"},
		{"1.0//0", "Error: float floor division by zero"},
		{"0**-1", "Error: 0.0 cannot be raised to a negative power"},
		{"2**1024", "Error: int too large to convert to float"},
		{"10**400 / 3", "Error: integer division result too large for a float"},
		{"2.0 ** 10000", "Error: (34, 'Numerical result out of range')"},
		{"(-8)**0.5", "Error: float() argument must be a string or a real number, not 'complex'"},
		{"(-8)**0.5 // 1", "Error: unsupported operand type(s) for //: 'complex' and 'int'"},
		{"1/((-8)**0.5 * 0)", "Error: complex division by zero"},
		{"0 ** (-8)**0.5", "Error: 0.0 to a negative or complex power"},
		{"...", "Error: float() argument must be a string or a real number, not 'ellipsis'"},
		{"()", "Error: float() argument must be a string or a real number, not 'tuple'"},
		{"() * 1.5", "Error: can't multiply sequence by non-int of type 'float'"},
		{"() + 1", `Error: can only concatenate tuple (not "int") to tuple`},
		{"-()", "Error: bad operand type for unary -: 'tuple'"},
		{"() ** 2", "Error: unsupported operand type(s) for ** or pow(): 'tuple' and 'int'"},
		{"2 (3+4)", "Error: 'int' object is not callable"},
		{"1.5(*2)", "Error: 1.5 argument after * must be an iterable, not int"},
		{"()(**1)", "Error: () argument after ** must be a mapping, not int"},
		{"((-4)**0.5 * 0)(*1)", "Error: 0j argument after * must be an iterable, not int"},
		{"((-4)**0.5 - 1.5)(*1)", "Error: (-1.4999999999999998+2j) argument after * must be an iterable, not int"},
		{"() * (2**100)", "Error: cannot fit 'int' into an index-sized integer"},
		{strings.Repeat("(", 201) + "1" + strings.Repeat(")", 201), "Error: too many nested parentheses (<string>, line 1)"},
		{strings.Repeat("-", 5000) + "1", "Error: maximum recursion depth exceeded during compilation"},
	}
	for _, c := range cases {
		got, err := calculate(c.expr)
		if err != nil {
			got = "Error: " + err.Error()
		}
		if got != c.want {
			t.Errorf("calculate(%q) = %q, want %q", clip(c.expr), got, c.want)
		}
	}
}

// calcExprs are expressions for the comparison with Python: well-formed
// arithmetic, and strings of the allowed characters at random (mostly
// syntax errors of every kind).
func calcExprs(n int) []string {
	g := &gen{r: rand.New(rand.NewPCG(3, 5))}
	const alphabet = "0123456789+-*/(). "
	weights := "0123456789+-*/(). ()()*. 0"
	out := make([]string, 0, n)
	for len(out) < n {
		switch g.r.IntN(3) {
		case 0:
			out = append(out, g.term(4))
		case 1:
			b := make([]byte, g.r.IntN(10)+1)
			for i := range b {
				b[i] = weights[g.r.IntN(len(weights))]
			}
			out = append(out, string(b))
		default:
			b := make([]byte, g.r.IntN(6)+1)
			for i := range b {
				b[i] = alphabet[g.r.IntN(len(alphabet))]
			}
			out = append(out, string(b))
		}
	}
	return out
}

// TestCalculateLikePython holds calculate to τ²'s (Python's eval) on
// thousands of expressions, in one oracle run.
func TestCalculateLikePython(t *testing.T) {
	exprs := calcExprs(4000)
	calls := make([]oracleCall, len(exprs))
	for i, e := range exprs {
		calls[i] = mkCall("calculate", obj{{"expression", e}})
	}
	want := runOracle(t, "retail", calls)
	agree := 0
	for i, e := range exprs {
		got, err := calculate(e)
		if err != nil {
			got = "Error: " + err.Error()
		}
		if got != want.Results[i] {
			t.Errorf("calculate(%q) = %q, Python says %q", e, got, want.Results[i])
			continue
		}
		agree++
	}
	t.Logf("calculate: %d/%d expressions agree with Python", agree, len(exprs))
}

func FuzzCalculate(f *testing.F) {
	for _, e := range calcExprs(60) {
		f.Add(e)
	}
	f.Add("((((1 2 3" + strings.Repeat("**2", 40))
	f.Fuzz(func(t *testing.T, expr string) {
		out, err := calculate(expr)
		if err == nil && out == "" {
			t.Fatalf("calculate(%q) answered nothing", expr)
		}
	})
}
