package retail

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Limits that keep a hostile expression cheap: the parser recurses once
// per parenthesis or unary sign.
const (
	maxExpr  = 500
	maxDepth = 64
)

// Calculate evaluates an arithmetic expression of decimal numbers, + - * /,
// unary signs and parentheses, and returns the result rounded to 2
// decimals (e.g. "12.5", "-3", "0.33"). Anything else is an error; it
// never panics.
func Calculate(expr string) (string, error) {
	if len(expr) > maxExpr {
		return "", fmt.Errorf("expression longer than %d characters", maxExpr)
	}
	p := &calc{src: expr}
	v, err := p.expr(0)
	if err != nil {
		return "", err
	}
	if p.skip(); p.pos < len(p.src) {
		return "", p.errorf("unexpected %q", p.src[p.pos])
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "", errors.New("the result is not a finite number")
	}
	return strconv.FormatFloat(RoundCents(v), 'f', -1, 64), nil
}

// calc is a recursive-descent parser over the grammar
//
//	expr   = term { ("+" | "-") term }
//	term   = unary { ("*" | "/") unary }
//	unary  = ("+" | "-") unary | number | "(" expr ")"
type calc struct {
	src string
	pos int
}

func (p *calc) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid expression at position %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

func (p *calc) skip() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

// peek returns the next non-blank byte, or 0 at the end.
func (p *calc) peek() byte {
	p.skip()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *calc) expr(depth int) (float64, error) {
	v, err := p.term(depth)
	if err != nil {
		return 0, err
	}
	for {
		op := p.peek()
		if op != '+' && op != '-' {
			return v, nil
		}
		p.pos++
		r, err := p.term(depth)
		if err != nil {
			return 0, err
		}
		if op == '+' {
			v += r
		} else {
			v -= r
		}
	}
}

func (p *calc) term(depth int) (float64, error) {
	v, err := p.unary(depth)
	if err != nil {
		return 0, err
	}
	for {
		op := p.peek()
		if op != '*' && op != '/' {
			return v, nil
		}
		p.pos++
		if c := p.peek(); c == '*' || c == '/' {
			return 0, p.errorf("unexpected %q", c) // no ** or //
		}
		r, err := p.unary(depth)
		if err != nil {
			return 0, err
		}
		if op == '*' {
			v *= r
			continue
		}
		if r == 0 {
			return 0, errors.New("division by zero")
		}
		v /= r
	}
}

func (p *calc) unary(depth int) (float64, error) {
	if depth >= maxDepth {
		return 0, p.errorf("nested more than %d levels deep", maxDepth)
	}
	switch c := p.peek(); {
	case c == '+' || c == '-':
		p.pos++
		v, err := p.unary(depth + 1)
		if c == '-' {
			v = -v
		}
		return v, err
	case c == '(':
		p.pos++
		v, err := p.expr(depth + 1)
		if err != nil {
			return 0, err
		}
		if p.peek() != ')' {
			return 0, p.errorf("missing ')'")
		}
		p.pos++
		return v, nil
	case c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 0:
		return 0, p.errorf("unexpected end of expression")
	default:
		return 0, p.errorf("unexpected %q", c)
	}
}

// number scans digits with at most one decimal point (".5" and "5." are
// numbers, as in Python); exponents are not accepted.
func (p *calc) number() (float64, error) {
	start := p.pos
	digits, dots := 0, 0
	for ; p.pos < len(p.src); p.pos++ {
		c := p.src[p.pos]
		if c == '.' {
			dots++
		} else if c >= '0' && c <= '9' {
			digits++
		} else {
			break
		}
	}
	if digits == 0 || dots > 1 {
		p.pos = start
		return 0, p.errorf("malformed number")
	}
	v, err := strconv.ParseFloat(p.src[start:p.pos], 64)
	if err != nil {
		p.pos = start
		return 0, p.errorf("malformed number: %v", err)
	}
	return v, nil
}
