package model

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/synth-data/synth/tools"
)

// Computed outputs and answers: a pack states what the agent must tell
// ("refund=sum(item_ids.price)") as a small arithmetic expression over
// the write's scopes. The generator computes the value it records and the
// agent computes what it says from the records it read, with the same
// code, so the two agree exactly when the agent read the right things.
//
//	expr  = term { ("+" | "-") term }
//	term  = "abs(" expr ")" | "sum(" ref ")" | ref | number
//	ref   = scope { "." field }
//
// A scope is target, result, user, or the name of an argument whose
// elements a choice named (the picked items, their replacements). sum
// adds every number at the path; a bare ref is one number.

var sayField = regexp.MustCompile(`\{[A-Za-z0-9_.-]+(\|(lower|title|words|money|clock))?\}`)

// expr is a parsed expression: terms added with their signs.
type expr struct {
	terms []exprTerm
}

type exprTerm struct {
	neg bool
	abs *expr
	sum bool
	ref string
	num float64
	lit bool
}

var exprToken = regexp.MustCompile(`^\s*(abs\(|sum\(|\)|[+-]|[0-9]+(\.[0-9]+)?|[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*)`)

func parseExpr(s string) (*expr, error) {
	e, rest, err := parseSum(strings.TrimSpace(s))
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(rest) != "" {
		return nil, fmt.Errorf("unexpected %q", strings.TrimSpace(rest))
	}
	return e, nil
}

func next(s string) (string, string) {
	m := exprToken.FindStringSubmatch(s)
	if m == nil {
		return "", s
	}
	return strings.TrimSpace(m[1]), s[len(m[0]):]
}

func parseSum(s string) (*expr, string, error) {
	e := &expr{}
	neg := false
	for {
		tok, rest := next(s)
		var t exprTerm
		switch {
		case tok == "abs(":
			inner, r, err := parseSum(rest)
			if err != nil {
				return nil, "", err
			}
			close, r2 := next(r)
			if close != ")" {
				return nil, "", errors.New("abs( without )")
			}
			t.abs, rest = inner, r2
		case tok == "sum(":
			ref, r := next(rest)
			close, r2 := next(r)
			if ref == "" || close != ")" || !isRef(ref) {
				return nil, "", errors.New("want sum(scope.path)")
			}
			t.sum, t.ref, rest = true, ref, r2
		case tok != "" && (tok[0] >= '0' && tok[0] <= '9'):
			t.num, _ = strconv.ParseFloat(tok, 64)
			t.lit = true
		case isRef(tok):
			t.ref = tok
		default:
			return nil, "", fmt.Errorf("expected a term at %q", strings.TrimSpace(s))
		}
		t.neg = neg
		e.terms = append(e.terms, t)
		op, r := next(rest)
		if op != "+" && op != "-" {
			return e, rest, nil
		}
		neg, s = op == "-", r
	}
}

func isRef(tok string) bool {
	return tok != "" && (tok[0] < '0' || tok[0] > '9') && tok != ")" && tok != "+" && tok != "-" && !strings.HasSuffix(tok, "(")
}

// eval computes an expression over named scopes; a path that holds no
// number fails it.
func (e *expr) eval(scopes map[string]any) (float64, error) {
	total := 0.0
	for _, t := range e.terms {
		var v float64
		switch {
		case t.abs != nil:
			x, err := t.abs.eval(scopes)
			if err != nil {
				return 0, err
			}
			v = math.Abs(x)
		case t.lit:
			v = t.num
		default:
			scope, path, _ := strings.Cut(t.ref, ".")
			root, ok := scopes[scope]
			if !ok {
				return 0, fmt.Errorf("%s: no scope %q", t.ref, scope)
			}
			vals := tools.Field(root, path)
			if path == "" {
				vals = []any{root}
			}
			if len(vals) == 0 || (!t.sum && len(vals) > 1) {
				return 0, fmt.Errorf("%s holds %d values", t.ref, len(vals))
			}
			for _, x := range vals {
				f, err := strconv.ParseFloat(tools.Text(x), 64)
				if err != nil {
					return 0, fmt.Errorf("%s is not a number", t.ref)
				}
				v += f
			}
		}
		if t.neg {
			v = -v
		}
		total += v
	}
	return math.Round(total*100) / 100, nil
}

// evalOutput computes a NAME=EXPR output, its EXPR parsed as e when the
// write was compiled (WriteModel.outputExprs).
func evalOutput(spec string, e *expr, scopes map[string]any) (string, float64, error) {
	name, _, _ := strings.Cut(spec, "=")
	v, err := e.eval(scopes)
	return strings.TrimSpace(name), v, err
}
