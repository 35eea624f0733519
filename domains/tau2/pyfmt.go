package tau2

import (
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// τ²'s results and messages are Python's text: str() of numbers, repr()
// of argument values inside pydantic's messages, json.dumps of a dict.
// These helpers write exactly what CPython 3 writes for the JSON values a
// tool call can carry.

// pyFloat is Python's repr (and str) of a float: the shortest digits that
// round-trip, in fixed notation when the decimal exponent is in
// [-4, 16), else in exponent notation with at least two exponent digits;
// an integral value keeps a ".0".
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // [-]d[.ddd]e±XX
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	decpt := exp + 1 // value = 0.DIGITS × 10^decpt
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case decpt <= -4 || decpt > 16:
		b.WriteByte(digits[0])
		if len(digits) > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		if exp < 0 {
			b.WriteByte('-')
			exp = -exp
		} else {
			b.WriteByte('+')
		}
		if exp < 10 {
			b.WriteByte('0')
		}
		b.WriteString(strconv.Itoa(exp))
	case decpt <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -decpt))
		b.WriteString(digits)
	case decpt >= len(digits):
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", decpt-len(digits)))
		b.WriteString(".0")
	default:
		b.WriteString(digits[:decpt])
		b.WriteByte('.')
		b.WriteString(digits[decpt:])
	}
	return b.String()
}

// pyRound is Python's round(x, 2) on a float: the double nearest to x
// correctly rounded to two decimals, ties to even on x's exact binary
// value (so round(2.675, 2) is 2.67). strconv's fixed formatting rounds
// the exact value the same way.
func pyRound2(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) || x == 0 {
		return x
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 2, 64), 64)
	if err != nil {
		return x
	}
	if r == 0 {
		// round(-0.001, 2) is -0.0 in Python.
		return math.Copysign(0, x)
	}
	return r
}

// pyNumber is a number as Python holds it after json.loads: an int for a
// literal without fraction or exponent, else a float. Integers beyond the
// int64 range keep their digits in big.
type pyNumber struct {
	isFloat bool
	i       int64
	big     *big.Int
	f       float64
}

func pyInt(i int64) pyNumber      { return pyNumber{i: i} }
func pyFloatN(f float64) pyNumber { return pyNumber{isFloat: true, f: f} }

// parsePyNumber reads a JSON number literal as json.loads would.
func parsePyNumber(s string) (pyNumber, bool) {
	if strings.ContainsAny(s, ".eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			var ne *strconv.NumError
			// Out of range parses to ±Inf, as float() does.
			if !(asNumErr(err, &ne) && ne.Err == strconv.ErrRange) {
				return pyNumber{}, false
			}
		}
		return pyFloatN(f), true
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return pyInt(i), true
	}
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return pyNumber{}, false
	}
	return pyNumber{big: b}, true
}

func asNumErr(err error, target **strconv.NumError) bool {
	ne, ok := err.(*strconv.NumError)
	if ok {
		*target = ne
	}
	return ok
}

// numberArg reads a numeric argument as the Python value τ²'s tool sees:
// json.Number text keeps int and float apart; a float64 from another
// decoder counts as an int when integral.
func numberArg(v any) (pyNumber, bool) {
	switch x := v.(type) {
	case json.Number:
		return parsePyNumber(string(x))
	case int64:
		return pyInt(x), true
	case int:
		return pyInt(int64(x)), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return pyInt(int64(x)), true
		}
		return pyFloatN(x), true
	}
	return pyNumber{}, false
}

// String is Python's str() of the number.
func (n pyNumber) String() string {
	switch {
	case n.isFloat:
		return pyFloat(n.f)
	case n.big != nil:
		return n.big.String()
	}
	return strconv.FormatInt(n.i, 10)
}

// float is the value as a float64 (what Python's int-to-float promotion gives).
func (n pyNumber) float() float64 {
	switch {
	case n.isFloat:
		return n.f
	case n.big != nil:
		f, _ := new(big.Float).SetInt(n.big).Float64()
		return f
	}
	return float64(n.i)
}

// jsonValue is the number as a record value: int64 for ints, float64 for
// floats (an int beyond int64 becomes the nearest float64).
func (n pyNumber) jsonValue() any {
	if n.isFloat {
		return n.f
	}
	if n.big != nil {
		return n.float()
	}
	return n.i
}

// Python-number arithmetic for the few sums τ²'s airline tools do on their
// arguments: int op int stays int, anything with a float is float.

func (n pyNumber) mulInt(k int64) pyNumber {
	if n.isFloat {
		return pyFloatN(n.f * float64(k))
	}
	if n.big == nil {
		if p, ok := mul64(n.i, k); ok {
			return pyInt(p)
		}
	}
	return pyNumber{big: new(big.Int).Mul(n.bigInt(), big.NewInt(k))}.norm()
}

func (n pyNumber) add(o pyNumber) pyNumber {
	if n.isFloat || o.isFloat {
		return pyFloatN(n.float() + o.float())
	}
	if n.big == nil && o.big == nil {
		s := n.i + o.i
		if (s > n.i) == (o.i > 0) {
			return pyInt(s)
		}
	}
	return pyNumber{big: new(big.Int).Add(n.bigInt(), o.bigInt())}.norm()
}

func (n pyNumber) neg() pyNumber {
	if n.isFloat {
		return pyFloatN(-n.f)
	}
	if n.big == nil && n.i != math.MinInt64 {
		return pyInt(-n.i)
	}
	return pyNumber{big: new(big.Int).Neg(n.bigInt())}.norm()
}

func (n pyNumber) sub(o pyNumber) pyNumber { return n.add(o.neg()) }

// cmp compares numerically (Python compares int and float exactly; the
// float64 comparison differs only beyond 2^53, out of τ²'s range).
func (n pyNumber) cmp(o pyNumber) int {
	if !n.isFloat && !o.isFloat {
		return n.bigInt().Cmp(o.bigInt())
	}
	a, b := n.float(), o.float()
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (n pyNumber) isZero() bool {
	if n.isFloat {
		return n.f == 0
	}
	return n.big == nil && n.i == 0 || n.big != nil && n.big.Sign() == 0
}

func (n pyNumber) bigInt() *big.Int {
	if n.big != nil {
		return n.big
	}
	return big.NewInt(n.i)
}

func (n pyNumber) norm() pyNumber {
	if n.big != nil && n.big.IsInt64() {
		return pyInt(n.big.Int64())
	}
	return n
}

func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, true
}

// pyMax0 is Python's max(0, x): the first argument wins ties, so
// max(0, 0.0) is the int 0.
func pyMax0(x pyNumber) pyNumber {
	if x.cmp(pyInt(0)) > 0 {
		return x
	}
	return pyInt(0)
}

// pyStr is Python's repr() of a str: single quotes unless the text holds
// a single quote and no double quote; backslash escapes for the quote,
// backslash, \t \n \r, other control and non-printable characters.
func pyStr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == 0x7f:
			b.WriteString(`\x`)
			writeHex(&b, uint32(r), 2)
		case r < 0x7f:
			b.WriteRune(r)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x`)
			writeHex(&b, uint32(r), 2)
		case r < 0x10000:
			b.WriteString(`\u`)
			writeHex(&b, uint32(r), 4)
		default:
			b.WriteString(`\U`)
			writeHex(&b, uint32(r), 8)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

func writeHex(b *strings.Builder, v uint32, width int) {
	const hexd = "0123456789abcdef"
	for i := width - 1; i >= 0; i-- {
		b.WriteByte(hexd[(v>>(4*uint(i)))&0xf])
	}
}

// pyRepr is Python's repr() of a JSON value as json.loads builds it
// (dict, list, str, int, float, bool, None). A Go map has lost the
// order of its keys: first come the keys named in first (a model's
// fields, in the order the agent is shown them), then the rest sorted.
func pyRepr(v any, first []string) string {
	var b strings.Builder
	writeRepr(&b, v, first)
	return b.String()
}

func writeRepr(b *strings.Builder, v any, first []string) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(pyStr(x))
	case json.Number:
		if n, ok := parsePyNumber(string(x)); ok {
			b.WriteString(n.String())
		} else {
			b.WriteString(string(x))
		}
	case int64, int, float64:
		n, _ := numberArg(x)
		if f, ok := x.(float64); ok {
			n = pyFloatN(f)
		}
		b.WriteString(n.String())
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e, nil)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range reprKeys(x, first) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyStr(k))
			b.WriteString(": ")
			writeRepr(b, x[k], nil)
		}
		b.WriteByte('}')
	default:
		b.WriteString("<?>")
	}
}

func reprKeys(m map[string]any, first []string) []string {
	keys := make([]string, 0, len(m))
	for _, k := range first {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	rest := make([]string, 0, len(m)-len(keys))
	for k := range m {
		if !slices.Contains(first, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

// pyTypeName is type(v).__name__ for a JSON value.
func pyTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	case float64:
		return "float"
	case json.Number:
		if n, ok := parsePyNumber(string(x)); ok && n.isFloat {
			return "float"
		}
		return "int"
	case int64, int:
		return "int"
	}
	return "object"
}

// truncateRepr shortens a repr the way pydantic-core does in its error
// messages: past 50 bytes, the first 25 and the last 24 bytes around
// "...", each cut inward to a character boundary.
func truncateRepr(s string) string {
	const maxLen, head = 50, 25
	if len(s) <= maxLen {
		return s
	}
	end := head
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	start := len(s) - (maxLen - head - 1)
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[:end] + "..." + s[start:]
}

// pyJSONString writes s as json.dumps does with ensure_ascii: \uXXXX
// (lowercase, surrogate pairs) for everything outside ASCII.
func pyJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20 || (r > 0x7e && r < 0x10000):
				b.WriteString(`\u`)
				writeHex(b, uint32(r), 4)
			case r >= 0x10000:
				r -= 0x10000
				b.WriteString(`\u`)
				writeHex(b, uint32(0xd800+(r>>10)), 4)
				b.WriteString(`\u`)
				writeHex(b, uint32(0xdc00+(r&0x3ff)), 4)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// pyLower is Python's str.lower(): full Unicode lowercase mapping, which
// differs from Go's per-rune mapping for U+0130 (İ becomes i + combining
// dot) and for a capital sigma that ends a word (ς).
func pyLower(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return asciiLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	for i, r := range rs {
		switch r {
		case 'İ':
			b.WriteString("i̇")
		case 'Σ':
			if finalSigma(rs, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// asciiLower lowercases ASCII text, allocating only when it must.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// finalSigma is Unicode's Final_Sigma condition as CPython applies it: a
// cased letter before (skipping case-ignorable ones) and none after.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	k := i + 1
	for k < len(rs) && caseIgnorable(rs[k]) {
		k++
	}
	return k == len(rs) || !cased(rs[k])
}

func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r)
}

func caseIgnorable(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk) ||
		r == '\'' || r == '.' || r == ':' || r == '^' || r == '`' || r == 0xad || r == 0x2019
}
