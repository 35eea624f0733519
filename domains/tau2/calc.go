package tau2

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// τ²'s calculate runs Python's eval on any string of the characters
// "0123456789+-*/(). " and answers str(round(float(result), 2)), or the
// text of whatever Python raised. calculate reproduces that for the whole
// language those characters spell: ints of any size, floats, the complex
// numbers a negative base with a fractional power makes, the empty tuple
// "()", the Ellipsis "...", calls ("2(3)" calls an int), with CPython
// 3.11's tokenizer and parser error messages.

const (
	calcChars = "0123456789+-*/(). "
	// maxNesting is where CPython's compiler gives up on a deep
	// expression (about 3,000 levels with the default recursion limit).
	maxNesting = 2990
	// maxIntBits bounds the integers calculate computes exactly; CPython
	// would go on (for seconds or minutes) where calculate stops and
	// answers as float() of such an int would.
	maxIntBits = 1 << 22
	// maxParens is the tokenizer's MAXLEVEL.
	maxParens = 200
	// intMaxStrDigits is sys.get_int_max_str_digits().
	intMaxStrDigits = 4300
)

var errIntTooLarge = errors.New("int too large to convert to float")

func calculate(expr string) (string, error) {
	for i := 0; i < len(expr); i++ {
		if strings.IndexByte(calcChars, expr[i]) < 0 {
			return "", errors.New("Invalid characters in expression")
		}
	}
	tree, err := parseExpr(expr)
	if err != nil {
		return "", err
	}
	v, err := tree.eval()
	if err != nil {
		return "", err
	}
	f, err := v.toFloat()
	if err != nil {
		return "", err
	}
	return pyFloat(pyRound2(f)), nil
}

// Tokens.

type tokKind uint8

const (
	tEnd tokKind = iota
	tNum
	tOp
)

type token struct {
	kind  tokKind
	text  string
	level int // paren depth after the token, as CPython records it
}

func syntaxErr(msg string) error { return fmt.Errorf("%s (<string>, line 1)", msg) }

// tokenize follows CPython's tokenizer over calcChars. It returns the
// tokens, the paren depth at the end, and the first tokenizer error.
func tokenize(s string) ([]token, int, error) {
	var toks []token
	level := 0
	isDigit := func(i int) bool { return i < len(s) && '0' <= s[i] && s[i] <= '9' }
	digits := func(i int) int {
		for isDigit(i) {
			i++
		}
		return i
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case isDigit(i):
			j := i
			isFloat := false
			if c == '0' {
				for j < len(s) && s[j] == '0' {
					j++
				}
				nonzero := isDigit(j)
				j = digits(j)
				if j < len(s) && s[j] == '.' {
					isFloat = true
					j = digits(j + 1)
				} else if nonzero {
					return nil, 0, syntaxErr("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers")
				}
			} else {
				j = digits(j)
				if j < len(s) && s[j] == '.' {
					isFloat = true
					j = digits(j + 1)
				}
			}
			text := s[i:j]
			if isFloat {
				text = "f" + text
			}
			toks = append(toks, token{kind: tNum, text: text, level: level})
			i = j
		case c == '.':
			switch {
			case isDigit(i + 1):
				j := digits(i + 1)
				toks = append(toks, token{kind: tNum, text: "f" + s[i:j], level: level})
				i = j
			case strings.HasPrefix(s[i:], "..."):
				toks = append(toks, token{kind: tOp, text: "...", level: level})
				i += 3
			default:
				toks = append(toks, token{kind: tOp, text: ".", level: level})
				i++
			}
		case c == '(':
			if level >= maxParens {
				return nil, 0, syntaxErr("too many nested parentheses")
			}
			level++
			toks = append(toks, token{kind: tOp, text: "(", level: level})
			i++
		case c == ')':
			if level == 0 {
				return nil, 0, syntaxErr("unmatched ')'")
			}
			level--
			toks = append(toks, token{kind: tOp, text: ")", level: level})
			i++
		case c == '*' || c == '/':
			if i+1 < len(s) && s[i+1] == c {
				toks = append(toks, token{kind: tOp, text: s[i : i+2], level: level})
				i += 2
			} else {
				toks = append(toks, token{kind: tOp, text: s[i : i+1], level: level})
				i++
			}
		default: // + -
			toks = append(toks, token{kind: tOp, text: s[i : i+1], level: level})
			i++
		}
	}
	return toks, level, nil
}

// The parser mirrors the rules of CPython 3.11's PEG grammar these tokens
// can reach, in the same order and with the same memoised rules, so that
// it looks at the same tokens: a first pass, then on failure a second
// with the "invalid_" rules that produce CPython's specific messages.

type node struct {
	op    string // "num", "...", "()", "u+", "u-", "+", "-", "*", "/", "//", "**", "call"
	text  string // num: the literal ("f" prefix for floats)
	l, r  *node
	arg   string // call: "", "pos", "*", "**"
	depth int
}

type result struct {
	n   *node
	end int
	ok  bool
}

type memoKey struct {
	rule uint8
	pos  int
}

const (
	rExpression uint8 = iota
	rDisjunction
	rTerm
	rFactor
	rPrimary
	rArguments
)

type parser struct {
	toks     []token
	depth    int // recursion depth of factor and atom, bounded like CPython's
	endLevel int
	invalid  bool // the second pass: invalid_ rules are on
	err      error
	memo     map[memoKey]result
}

func parseExpr(s string) (*node, error) {
	// eval() strips leading spaces and tabs.
	s = strings.TrimLeft(s, " ")
	toks, endLevel, err := tokenize(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, errors.New("invalid syntax (<string>, line 0)")
	}
	p := &parser{toks: toks, endLevel: endLevel, memo: map[memoKey]result{}}
	if r := p.eval(); r.ok {
		return r.n, nil
	}
	if p.err != nil {
		return nil, p.err
	}
	p.invalid, p.memo = true, map[memoKey]result{}
	p.eval()
	if p.err != nil {
		return nil, p.err
	}
	return nil, syntaxErr("invalid syntax")
}

// at returns the token at i; asking for the end of the input inside
// parentheses is CPython's "was never closed".
func (p *parser) at(i int) token {
	if i < len(p.toks) {
		return p.toks[i]
	}
	if p.endLevel > 0 && p.err == nil {
		p.err = syntaxErr("'(' was never closed")
	}
	return token{kind: tEnd}
}

func (p *parser) isOp(i int, op string) bool {
	t := p.at(i)
	return t.kind == tOp && t.text == op
}

func (p *parser) raise(msg string) result {
	if p.err == nil {
		p.err = syntaxErr(msg)
	}
	return result{}
}

func (p *parser) memoized(rule uint8, pos int, f func() result) result {
	k := memoKey{rule, pos}
	if r, ok := p.memo[k]; ok {
		return r
	}
	r := f()
	if p.err != nil {
		return result{}
	}
	p.memo[k] = r
	return r
}

func mk(op string, l, r *node) *node {
	d := 0
	if l != nil {
		d = l.depth
	}
	if r != nil && r.depth > d {
		d = r.depth
	}
	return &node{op: op, l: l, r: r, depth: d + 1}
}

// eval: expressions NEWLINE* ENDMARKER.
func (p *parser) eval() result {
	r := p.expression(0)
	if !r.ok || p.err != nil {
		return result{}
	}
	p.isOp(r.end, ",")
	if p.at(r.end).kind != tEnd || p.err != nil {
		return result{}
	}
	if r.n.depth > maxNesting {
		p.err = errors.New("maximum recursion depth exceeded during compilation")
		return result{}
	}
	return r
}

// expression: invalid_expression (second pass) | disjunction.
func (p *parser) expression(pos int) result {
	return p.memoized(rExpression, pos, func() result {
		if p.invalid {
			p.invalidExpression(pos)
			if p.err != nil {
				return result{}
			}
		}
		return p.disjunction(pos)
	})
}

// invalid_expression: two expressions side by side inside brackets are
// "Perhaps you forgot a comma?".
func (p *parser) invalidExpression(pos int) {
	a := p.disjunction(pos)
	if !a.ok || p.err != nil {
		return
	}
	saved := p.invalid
	p.invalid = false
	b := p.disjunction(a.end)
	p.invalid = saved
	if !b.ok || p.err != nil {
		return
	}
	if p.toks[b.end-1].level == 0 {
		return
	}
	p.raise("invalid syntax. Perhaps you forgot a comma?")
}

// disjunction down to sum: no comparison, boolean or bit operator can be
// spelled, so they pass the sum through (after a look at the next token).
func (p *parser) disjunction(pos int) result {
	return p.memoized(rDisjunction, pos, func() result {
		r := p.term(pos)
		for r.ok && p.err == nil {
			t := p.at(r.end)
			if t.kind != tOp || t.text != "+" && t.text != "-" {
				break
			}
			next := p.term(r.end + 1)
			if !next.ok {
				break
			}
			r = result{mk(t.text, r.n, next.n), next.end, true}
		}
		if p.err != nil {
			return result{}
		}
		return r
	})
}

func (p *parser) term(pos int) result {
	return p.memoized(rTerm, pos, func() result {
		r := p.factor(pos)
		for r.ok && p.err == nil {
			t := p.at(r.end)
			if t.kind != tOp || t.text != "*" && t.text != "/" && t.text != "//" {
				break
			}
			next := p.factor(r.end + 1)
			if !next.ok {
				break
			}
			r = result{mk(t.text, r.n, next.n), next.end, true}
		}
		if p.err != nil {
			return result{}
		}
		return r
	})
}

// factor: '+' factor | '-' factor | power.
func (p *parser) factor(pos int) result {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		p.err = errors.New("maximum recursion depth exceeded during compilation")
		return result{}
	}
	return p.memoized(rFactor, pos, func() result {
		t := p.at(pos)
		if t.kind == tOp && (t.text == "+" || t.text == "-") {
			if f := p.factor(pos + 1); f.ok {
				return result{mk("u"+t.text, f.n, nil), f.end, true}
			}
			if p.err != nil {
				return result{}
			}
		}
		return p.power(pos)
	})
}

// power: primary '**' factor | primary.
func (p *parser) power(pos int) result {
	a := p.primary(pos)
	if !a.ok || p.err != nil {
		return result{}
	}
	if p.isOp(a.end, "**") {
		if f := p.factor(a.end + 1); f.ok {
			return result{mk("**", a.n, f.n), f.end, true}
		}
	}
	if p.err != nil {
		return result{}
	}
	return a
}

// primary: atom followed by calls (".NAME" and "[...]" cannot be spelled;
// a "." is looked past all the same).
func (p *parser) primary(pos int) result {
	return p.memoized(rPrimary, pos, func() result {
		r := p.atom(pos)
		for r.ok && p.err == nil {
			if p.isOp(r.end, ".") {
				p.at(r.end + 1)
				if p.err != nil {
					return result{}
				}
			}
			if !p.isOp(r.end, "(") {
				break
			}
			p.genexp(r.end)
			if p.err != nil {
				return result{}
			}
			call, ok := p.call(r.n, r.end)
			if !ok {
				break
			}
			r = call
		}
		if p.err != nil {
			return result{}
		}
		return r
	})
}

// call: primary '(' [arguments] ')'. Without commas or names, the
// arguments are one expression, "*" expression or "**" expression.
func (p *parser) call(fn *node, pos int) (result, bool) {
	args := p.arguments(pos + 1)
	if p.err != nil {
		return result{}, false
	}
	end := pos + 1
	n := &node{op: "call", l: fn}
	if args.ok {
		end = args.end
		n.r, n.arg = args.n.r, args.n.arg
	}
	if !p.isOp(end, ")") {
		return result{}, false
	}
	d := fn.depth
	if n.r != nil && n.r.depth > d {
		d = n.r.depth
	}
	n.depth = d + 1
	return result{n, end + 1, true}, true
}

// arguments: args [','] &')' | invalid_arguments. The result node holds
// the argument in r and its kind in arg.
func (p *parser) arguments(pos int) result {
	return p.memoized(rArguments, pos, func() result {
		if r := p.args(pos); r.ok || p.err != nil {
			if p.err != nil {
				return result{}
			}
			p.isOp(r.end, ",")
			if p.isOp(r.end, ")") {
				return r
			}
			if p.err != nil {
				return result{}
			}
		}
		if p.invalid {
			// invalid_arguments: each alternative needs a comma or a
			// "for" after an args or an expression.
			p.args(pos)
			if p.err == nil {
				p.expression(pos)
			}
		}
		return result{}
	})
}

func (p *parser) args(pos int) result {
	// starred_expression | expression !':=' !'='
	if p.isOp(pos, "*") {
		if e := p.expression(pos + 1); e.ok {
			return result{&node{r: e.n, arg: "*"}, e.end, true}
		}
		if p.err != nil {
			return result{}
		}
	}
	if e := p.expression(pos); e.ok {
		return result{&node{r: e.n, arg: "pos"}, e.end, true}
	}
	if p.err != nil {
		return result{}
	}
	// kwargs: kwarg_or_starred (invalid_kwarg | starred_expression) or
	// kwarg_or_double_starred (invalid_kwarg | '**' expression).
	if p.invalid {
		p.expression(pos)
		if p.err != nil {
			return result{}
		}
	}
	if p.isOp(pos, "*") {
		if e := p.expression(pos + 1); e.ok {
			return result{&node{r: e.n, arg: "*"}, e.end, true}
		}
	}
	if p.isOp(pos, "**") {
		if e := p.expression(pos + 1); e.ok {
			return result{&node{r: e.n, arg: "**"}, e.end, true}
		}
	}
	return result{}
}

// genexp is tried before the call: '(' expression for_if_clauses ')'. No
// "for" can be spelled, so it only ever fails, after parsing what a
// call's argument parse would.
func (p *parser) genexp(pos int) {
	if e := p.expression(pos + 1); e.ok {
		p.at(e.end)
	}
	if p.invalid && p.err == nil && p.isOp(pos+1, "*") {
		// invalid_comprehension: '(' starred_expression for_if_clauses
		if e := p.expression(pos + 2); e.ok {
			p.at(e.end)
		}
	}
}

// atom: NUMBER | '(' (tuple | group | genexp) | '...'.
func (p *parser) atom(pos int) result {
	t := p.at(pos)
	switch {
	case t.kind == tNum:
		return result{&node{op: "num", text: t.text, depth: 1}, pos + 1, true}
	case t.kind == tOp && t.text == "...":
		return result{&node{op: "...", depth: 1}, pos + 1, true}
	case t.kind == tOp && t.text == "(":
		if r := p.tuple(pos); r.ok || p.err != nil {
			return r
		}
		if r := p.group(pos); r.ok || p.err != nil {
			return r
		}
		p.genexp(pos)
	}
	return result{}
}

// tuple: '(' [star_named_expression ',' ...] ')' — only "()" without commas.
func (p *parser) tuple(pos int) result {
	// The ',' a star_named_expression needs cannot come, but CPython
	// parses one (and looks at the token after it) all the same.
	p.starNamedExpression(pos + 1)
	if p.err != nil {
		return result{}
	}
	if p.isOp(pos+1, ")") {
		return result{&node{op: "()", depth: 1}, pos + 2, true}
	}
	return result{}
}

func (p *parser) starNamedExpression(pos int) result {
	if p.isOp(pos, "*") {
		// '*' bitwise_or
		if r := p.disjunction(pos + 1); r.ok {
			p.at(r.end)
			return r
		}
		return result{}
	}
	return p.namedExpression(pos)
}

// named_expression: invalid_named_expression (second pass) | expression !':='.
func (p *parser) namedExpression(pos int) result {
	if p.invalid {
		// a=expression ':=' expression
		if e := p.expression(pos); e.ok {
			p.at(e.end)
		}
		if p.err != nil {
			return result{}
		}
		// !(list|tuple|genexp|...) a=bitwise_or '=' ...: the lookahead
		// tries a tuple and a genexp where a '(' starts.
		isTuple := false
		if p.isOp(pos, "(") {
			isTuple = p.tuple(pos).ok
			if !isTuple && p.err == nil {
				p.genexp(pos)
			}
		}
		if !isTuple && p.err == nil {
			if r := p.disjunction(pos); r.ok {
				p.at(r.end)
			}
		}
		if p.err != nil {
			return result{}
		}
	}
	e := p.expression(pos)
	if e.ok {
		p.at(e.end)
	}
	if p.err != nil {
		return result{}
	}
	return e
}

// group: '(' named_expression ')' | invalid_group (second pass).
func (p *parser) group(pos int) result {
	if e := p.namedExpression(pos + 1); e.ok && p.err == nil {
		if p.isOp(e.end, ")") {
			return result{e.n, e.end + 1, true}
		}
	}
	if p.err != nil || !p.invalid {
		return result{}
	}
	for _, star := range []string{"*", "**"} {
		if !p.isOp(pos+1, star) {
			continue
		}
		if e := p.expression(pos + 2); e.ok && p.isOp(e.end, ")") {
			if star == "*" {
				return p.raise("cannot use starred expression here")
			}
			return p.raise("cannot use double starred expression here")
		}
		if p.err != nil {
			return result{}
		}
	}
	return result{}
}

// Values: Python's int (exact), float, complex, the empty tuple and
// Ellipsis.

type vkind uint8

const (
	vInt vkind = iota
	vFloat
	vComplex
	vTuple
	vEllipsis
)

type pyVal struct {
	k vkind
	i *big.Int
	f float64
	c complex128
}

func (v pyVal) typeName() string {
	return [...]string{"int", "float", "complex", "tuple", "ellipsis"}[v.k]
}

// str is str(v), as CPython's call-error messages use it.
func (v pyVal) str() (string, error) {
	switch v.k {
	case vInt:
		s := v.i.String()
		if len(strings.TrimPrefix(s, "-")) > intMaxStrDigits {
			return "", fmt.Errorf("Exceeds the limit (%d digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit", intMaxStrDigits)
		}
		return s, nil
	case vFloat:
		return pyFloat(v.f), nil
	case vComplex:
		return complexRepr(v.c), nil
	case vTuple:
		return "()", nil
	}
	return "Ellipsis", nil
}

// complexRepr is repr(complex): "(a+bj)", or "bj" for a zero real part
// with a positive sign; the parts in repr style without a trailing ".0".
func complexRepr(c complex128) string {
	part := func(f float64) string {
		s := pyFloat(f)
		return strings.TrimSuffix(s, ".0")
	}
	re, im := real(c), imag(c)
	if re == 0 && !math.Signbit(re) {
		return part(im) + "j"
	}
	sign := "+"
	if math.Signbit(im) && !math.IsNaN(im) {
		sign = "" // the part carries its "-"
	}
	return "(" + part(re) + sign + part(im) + "j)"
}

func (v pyVal) toFloat() (float64, error) {
	switch v.k {
	case vInt:
		return intToFloat(v.i)
	case vFloat:
		return v.f, nil
	}
	return 0, fmt.Errorf("float() argument must be a string or a real number, not '%s'", v.typeName())
}

// intToFloat rounds an int to the nearest float, ties to even, as
// CPython does; past the float range it is an OverflowError.
func intToFloat(i *big.Int) (float64, error) {
	if i.IsInt64() {
		n := i.Int64()
		if n > -(1<<53) && n < 1<<53 {
			return float64(n), nil
		}
	}
	f, _ := new(big.Float).SetInt(i).Float64()
	if math.IsInf(f, 0) {
		return 0, errIntTooLarge
	}
	return f, nil
}

func (v pyVal) asComplex() (complex128, error) {
	switch v.k {
	case vInt:
		f, err := intToFloat(v.i)
		return complex(f, 0), err
	case vFloat:
		return complex(v.f, 0), nil
	}
	return v.c, nil
}

func numeric(v pyVal) bool { return v.k <= vComplex }

func (n *node) eval() (pyVal, error) {
	switch n.op {
	case "num":
		if strings.HasPrefix(n.text, "f") {
			f, err := strconv.ParseFloat(n.text[1:], 64)
			var ne *strconv.NumError
			if err != nil && !(errors.As(err, &ne) && ne.Err == strconv.ErrRange) {
				return pyVal{}, err
			}
			return pyVal{k: vFloat, f: f}, nil
		}
		i, ok := new(big.Int).SetString(n.text, 10)
		if !ok {
			return pyVal{}, fmt.Errorf("bad number %q", n.text)
		}
		return pyVal{k: vInt, i: i}, nil
	case "...":
		return pyVal{k: vEllipsis}, nil
	case "()":
		return pyVal{k: vTuple}, nil
	case "u+", "u-":
		x, err := n.l.eval()
		if err != nil {
			return pyVal{}, err
		}
		return unary(n.op[1:], x)
	case "call":
		return n.evalCall()
	}
	l, err := n.l.eval()
	if err != nil {
		return pyVal{}, err
	}
	r, err := n.r.eval()
	if err != nil {
		return pyVal{}, err
	}
	return binary(n.op, l, r)
}

func (n *node) evalCall() (pyVal, error) {
	fn, err := n.l.eval()
	if err != nil {
		return pyVal{}, err
	}
	if n.r != nil {
		arg, err := n.r.eval()
		if err != nil {
			return pyVal{}, err
		}
		switch {
		case n.arg == "*" && arg.k != vTuple, n.arg == "**":
			s, err := fn.str()
			if err != nil {
				return pyVal{}, err
			}
			if n.arg == "*" {
				return pyVal{}, fmt.Errorf("%s argument after * must be an iterable, not %s", s, arg.typeName())
			}
			return pyVal{}, fmt.Errorf("%s argument after ** must be a mapping, not %s", s, arg.typeName())
		}
	}
	return pyVal{}, fmt.Errorf("'%s' object is not callable", fn.typeName())
}

func unary(op string, x pyVal) (pyVal, error) {
	switch x.k {
	case vInt:
		if op == "-" {
			return pyVal{k: vInt, i: new(big.Int).Neg(x.i)}, nil
		}
		return x, nil
	case vFloat:
		if op == "-" {
			return pyVal{k: vFloat, f: -x.f}, nil
		}
		return x, nil
	case vComplex:
		if op == "-" {
			return pyVal{k: vComplex, c: -x.c}, nil
		}
		return x, nil
	}
	return pyVal{}, fmt.Errorf("bad operand type for unary %s: '%s'", op, x.typeName())
}

func unsupported(op string, l, r pyVal) error {
	if op == "**" {
		op = "** or pow()"
	}
	return fmt.Errorf("unsupported operand type(s) for %s: '%s' and '%s'", op, l.typeName(), r.typeName())
}

func binary(op string, l, r pyVal) (pyVal, error) {
	if !numeric(l) || !numeric(r) {
		return sequenceOp(op, l, r)
	}
	if l.k == vComplex || r.k == vComplex {
		return complexOp(op, l, r)
	}
	if l.k == vInt && r.k == vInt {
		return intOp(op, l.i, r.i)
	}
	a, err := l.toFloat()
	if err != nil {
		return pyVal{}, err
	}
	b, err := r.toFloat()
	if err != nil {
		return pyVal{}, err
	}
	return floatOp(op, a, b)
}

// sequenceOp: the tuple's concatenation and repetition, and the
// TypeErrors everything else with a tuple or Ellipsis gets.
func sequenceOp(op string, l, r pyVal) (pyVal, error) {
	switch op {
	case "+":
		if l.k == vTuple {
			if r.k == vTuple {
				return l, nil
			}
			return pyVal{}, fmt.Errorf("can only concatenate tuple (not \"%s\") to tuple", r.typeName())
		}
	case "*":
		seq, n := l, r
		if l.k != vTuple {
			seq, n = r, l
		}
		if seq.k == vTuple {
			if n.k != vInt {
				return pyVal{}, fmt.Errorf("can't multiply sequence by non-int of type '%s'", n.typeName())
			}
			if !n.i.IsInt64() {
				return pyVal{}, errors.New("cannot fit 'int' into an index-sized integer")
			}
			return seq, nil
		}
	}
	return pyVal{}, unsupported(op, l, r)
}

func intOp(op string, a, b *big.Int) (pyVal, error) {
	switch op {
	case "+":
		return bigResult(new(big.Int).Add(a, b))
	case "-":
		return bigResult(new(big.Int).Sub(a, b))
	case "*":
		if a.BitLen()+b.BitLen() > maxIntBits {
			return pyVal{}, errIntTooLarge
		}
		return bigResult(new(big.Int).Mul(a, b))
	case "/":
		if b.Sign() == 0 {
			return pyVal{}, errors.New("division by zero")
		}
		f, _ := new(big.Rat).SetFrac(a, b).Float64()
		if math.IsInf(f, 0) {
			return pyVal{}, errors.New("integer division result too large for a float")
		}
		return pyVal{k: vFloat, f: f}, nil
	case "//":
		if b.Sign() == 0 {
			return pyVal{}, errors.New("integer division or modulo by zero")
		}
		q, m := new(big.Int).QuoRem(a, b, new(big.Int))
		if m.Sign() != 0 && (m.Sign() < 0) != (b.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		}
		return pyVal{k: vInt, i: q}, nil
	case "**":
		if b.Sign() < 0 {
			x, err := intToFloat(a)
			if err != nil {
				return pyVal{}, err
			}
			y, err := intToFloat(b)
			if err != nil {
				return pyVal{}, err
			}
			return floatOp("**", x, y)
		}
		if a.BitLen() > 1 && (!b.IsInt64() || b.Int64()*int64(a.BitLen()) > maxIntBits) {
			return pyVal{}, errIntTooLarge
		}
		return bigResult(new(big.Int).Exp(a, b, nil))
	}
	return pyVal{}, fmt.Errorf("unknown operator %s", op)
}

func bigResult(i *big.Int) (pyVal, error) {
	if i.BitLen() > maxIntBits {
		return pyVal{}, errIntTooLarge
	}
	return pyVal{k: vInt, i: i}, nil
}

func floatOp(op string, a, b float64) (pyVal, error) {
	switch op {
	case "+":
		return pyVal{k: vFloat, f: a + b}, nil
	case "-":
		return pyVal{k: vFloat, f: a - b}, nil
	case "*":
		return pyVal{k: vFloat, f: a * b}, nil
	case "/":
		if b == 0 {
			return pyVal{}, errors.New("float division by zero")
		}
		return pyVal{k: vFloat, f: a / b}, nil
	case "//":
		if b == 0 {
			return pyVal{}, errors.New("float floor division by zero")
		}
		return pyVal{k: vFloat, f: floorDiv(a, b)}, nil
	case "**":
		return floatPow(a, b)
	}
	return pyVal{}, fmt.Errorf("unknown operator %s", op)
}

// floorDiv is CPython's float floor division (float_floor_div).
func floorDiv(vx, wx float64) float64 {
	mod := math.Mod(vx, wx)
	div := (vx - mod) / wx
	if mod != 0 && (wx < 0) != (mod < 0) {
		div -= 1.0
	}
	if div == 0 {
		return math.Copysign(0, vx/wx)
	}
	fl := math.Floor(div)
	if div-fl > 0.5 {
		fl += 1.0
	}
	return fl
}

func isOddInteger(f float64) bool {
	return math.Abs(math.Mod(f, 2)) == 1
}

// floatPow is CPython's float_pow: its special cases, a complex result for
// a negative base and a fractional exponent, and an OverflowError where
// the C library reports a range error.
func floatPow(iv, iw float64) (pyVal, error) {
	f := func(x float64) (pyVal, error) { return pyVal{k: vFloat, f: x}, nil }
	switch {
	case iw == 0:
		return f(1)
	case math.IsNaN(iv):
		return f(iv)
	case math.IsNaN(iw):
		if iv == 1 {
			return f(1)
		}
		return f(iw)
	case math.IsInf(iw, 0):
		av := math.Abs(iv)
		if av == 1 {
			return f(1)
		}
		if (iw > 0) == (av > 1) {
			return f(math.Abs(iw))
		}
		return f(0)
	case math.IsInf(iv, 0):
		odd := isOddInteger(iw)
		if iw > 0 {
			if odd {
				return f(iv)
			}
			return f(math.Abs(iv))
		}
		if odd {
			return f(math.Copysign(0, iv))
		}
		return f(0)
	case iv == 0:
		if iw < 0 {
			return pyVal{}, errors.New("0.0 cannot be raised to a negative power")
		}
		if isOddInteger(iw) {
			return f(iv)
		}
		return f(0)
	}
	negate := false
	if iv < 0 {
		if iw != math.Floor(iw) {
			return complexPow(complex(iv, 0), complex(iw, 0))
		}
		iv = -iv
		negate = isOddInteger(iw)
	}
	if iv == 1 {
		if negate {
			return f(-1)
		}
		return f(1)
	}
	x := powCorrect(iv, iw)
	if math.IsInf(x, 0) {
		return pyVal{}, errors.New("(34, 'Numerical result out of range')")
	}
	if negate {
		x = -x
	}
	return f(x)
}

// powCorrect is pow(x, y) for finite positive x != 1 and finite y != 0,
// correctly rounded (as glibc's pow is, to within a hair) for integer
// exponents by exact multiplication; other exponents use math.Pow.
func powCorrect(x, y float64) float64 {
	if y != math.Trunc(y) || math.Abs(y) > 1<<16 {
		return math.Pow(x, y)
	}
	n := int64(math.Abs(y))
	const prec = 2048
	base := new(big.Float).SetPrec(prec).SetFloat64(x)
	acc := new(big.Float).SetPrec(prec).SetInt64(1)
	for n > 0 {
		if n&1 == 1 {
			acc.Mul(acc, base)
		}
		n >>= 1
		if n > 0 {
			base.Mul(base, base)
		}
		if acc.MantExp(nil) > 1100 || acc.MantExp(nil) < -1200 {
			// Far outside the float range: the result is inf or 0.
			break
		}
	}
	if y < 0 {
		acc.Quo(new(big.Float).SetPrec(prec).SetInt64(1), acc)
	}
	r, _ := acc.Float64()
	if n > 0 {
		// Stopped early: finish with floats, which saturate the same way.
		return math.Pow(x, y)
	}
	return r
}

func complexOp(op string, l, r pyVal) (pyVal, error) {
	a, err := l.asComplex()
	if err != nil {
		return pyVal{}, err
	}
	b, err := r.asComplex()
	if err != nil {
		return pyVal{}, err
	}
	c := func(x complex128) (pyVal, error) { return pyVal{k: vComplex, c: x}, nil }
	switch op {
	case "+":
		return c(a + b)
	case "-":
		return c(a - b)
	case "*":
		return c(cProd(a, b))
	case "/":
		q, zero := cQuot(a, b)
		if zero {
			return pyVal{}, errors.New("complex division by zero")
		}
		return c(q)
	case "**":
		return complexPow(a, b)
	}
	return pyVal{}, unsupported(op, l, r)
}

// complexPow is CPython's complex power (complex_pow): repeated
// multiplication for an integral exponent up to 100, else its polar
// formula; 0 to a negative or complex power and overflow are errors.
func complexPow(a, b complex128) (pyVal, error) {
	var r complex128
	edom := false
	if imag(b) == 0 && real(b) == math.Floor(real(b)) && math.Abs(real(b)) <= 100 {
		n := int64(real(b))
		if n >= 0 {
			r = cPowU(a, n)
		} else {
			r, edom = cQuot(1, cPowU(a, -n))
		}
	} else {
		switch {
		case b == 0:
			r = 1
		case a == 0:
			edom = imag(b) != 0 || real(b) < 0
		default:
			vabs := math.Hypot(real(a), imag(a))
			length := math.Pow(vabs, real(b))
			at := math.Atan2(imag(a), real(a))
			phase := at * real(b)
			if imag(b) != 0 {
				length /= math.Exp(at * imag(b))
				phase += imag(b) * math.Log(vabs)
			}
			r = complex(length*math.Cos(phase), length*math.Sin(phase))
		}
	}
	if edom {
		return pyVal{}, errors.New("0.0 to a negative or complex power")
	}
	if math.IsInf(real(r), 0) || math.IsInf(imag(r), 0) {
		return pyVal{}, errors.New("complex exponentiation")
	}
	return pyVal{k: vComplex, c: r}, nil
}

// cProd is CPython's complex product, written out so no fused
// multiply-add changes its rounding.
func cProd(a, b complex128) complex128 {
	re := float64(real(a)*real(b)) - float64(imag(a)*imag(b))
	im := float64(real(a)*imag(b)) + float64(imag(a)*real(b))
	return complex(re, im)
}

func cPowU(x complex128, n int64) complex128 {
	r, p := complex128(1), x
	for mask := int64(1); mask > 0 && n >= mask; mask <<= 1 {
		if n&mask != 0 {
			r = cProd(r, p)
		}
		p = cProd(p, p)
	}
	return r
}

// cQuot is CPython's complex division; the bool is a zero divisor.
func cQuot(a, b complex128) (complex128, bool) {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	absR, absI := math.Abs(br), math.Abs(bi)
	switch {
	case absR >= absI:
		if absR == 0 {
			return 0, true
		}
		ratio := bi / br
		denom := br + float64(bi*ratio)
		return complex((ar+float64(ai*ratio))/denom, (ai-float64(ar*ratio))/denom), false
	case absI >= absR:
		ratio := br / bi
		denom := float64(br*ratio) + bi
		return complex((float64(ar*ratio)+ai)/denom, (float64(ai*ratio)-ar)/denom), false
	}
	return complex(math.NaN(), math.NaN()), false
}
