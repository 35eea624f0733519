package tau2

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode"
)

// τ²'s airline tools build pydantic models from the dicts the agent sends
// (FlightInfo(**flight), Passenger(**p), Payment(**p)); what does not fit
// fails with pydantic's ValidationError, whose text τ² returns. These
// functions validate the same way (lax mode, extra keys ignored) and
// write the same text.

// pydanticDocs is the errors.pydantic.dev version pydantic puts in every
// message: that of the pydantic τ²'s environment runs (2.13 where this
// project's oracle runs).
const pydanticDocs = "2.13"

// pydErr is one line of a ValidationError.
type pydErr struct {
	loc   string
	typ   string // pydantic's error type
	msg   string
	input any // the offending value
	first []string
}

// pydError renders a ValidationError as str() does.
func pydError(model string, errs []pydErr) error {
	var b strings.Builder
	if len(errs) == 1 {
		fmt.Fprintf(&b, "1 validation error for %s", model)
	} else {
		fmt.Fprintf(&b, "%d validation errors for %s", len(errs), model)
	}
	for _, e := range errs {
		fmt.Fprintf(&b, "\n%s\n  %s [type=%s, input_value=%s, input_type=%s]\n    For further information visit https://errors.pydantic.dev/%s/v/%s",
			e.loc, e.msg, e.typ, truncateRepr(pyRepr(e.input, e.first)), pyTypeName(e.input), pydanticDocs, e.typ)
	}
	return errors.New(b.String())
}

// validateModel validates one dict against a model of str and int
// fields. Ints come back as pyNumber, strings as string; unknown keys are
// dropped.
func validateModel(m *model, in map[string]any) (map[string]any, []pydErr) {
	out := make(map[string]any, len(m.fields))
	var errs []pydErr
	for _, f := range m.fields {
		v, ok := in[f.name]
		if !ok {
			errs = append(errs, pydErr{loc: f.name, typ: "missing", msg: "Field required", input: in, first: m.fieldNames()})
			continue
		}
		switch f.t.k {
		case kStr:
			s, ok := v.(string)
			if !ok {
				errs = append(errs, pydErr{loc: f.name, typ: "string_type", msg: "Input should be a valid string", input: v})
				continue
			}
			out[f.name] = s
		case kInt:
			n, e := pydInt(v)
			if e != nil {
				e.loc = f.name
				errs = append(errs, *e)
				continue
			}
			out[f.name] = n
		default:
			return nil, []pydErr{{loc: f.name, typ: "unsupported", msg: "field type not handled", input: v}}
		}
	}
	return out, errs
}

// validateAll validates each dict in turn; the first that fails is the
// error, as τ²'s list comprehension stops there.
func validateAll(m *model, items []map[string]any) ([]map[string]any, error) {
	out := make([]map[string]any, len(items))
	for i, it := range items {
		v, errs := validateModel(m, it)
		if len(errs) > 0 {
			return nil, pydError(m.name, errs)
		}
		out[i] = v
	}
	return out, nil
}

// pydInt is pydantic's lax int: ints, bools, integral floats, and strings
// of digits.
func pydInt(v any) (pyNumber, *pydErr) {
	switch x := v.(type) {
	case bool:
		if x {
			return pyInt(1), nil
		}
		return pyInt(0), nil
	case json.Number, int64, int, float64:
		n, ok := numberArg(x)
		if f, isF := x.(float64); isF {
			n, ok = pyFloatN(f), true
		}
		if !ok {
			break
		}
		return pydIntNum(n, v)
	case string:
		if n, ok := pydIntText(x); ok {
			return n, nil
		}
		return pyNumber{}, &pydErr{typ: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer", input: v}
	}
	return pyNumber{}, &pydErr{typ: "int_type", msg: "Input should be a valid integer", input: v}
}

// pydIntNum validates a Python number for an int field; input is what
// the message shows.
func pydIntNum(n pyNumber, input any) (pyNumber, *pydErr) {
	if !n.isFloat {
		return n, nil
	}
	f := n.f
	switch {
	case math.IsInf(f, 0) || math.IsNaN(f):
		return pyNumber{}, &pydErr{typ: "finite_number", msg: "Input should be a finite number", input: input}
	case f != math.Trunc(f):
		return pyNumber{}, &pydErr{typ: "int_from_float", msg: "Input should be a valid integer, got a number with a fractional part", input: input}
	case math.Abs(f) >= 1<<63:
		return pyNumber{}, &pydErr{typ: "int_parsing_size", msg: "Unable to parse input string as an integer, exceeded maximum size", input: input}
	}
	return pyInt(int64(f)), nil
}

// pydIntText parses a string as pydantic's int does: surrounding
// whitespace, one sign, digits with single underscores, and a fraction
// of zeros only ("12.0").
func pydIntText(x string) (pyNumber, bool) {
	s := strings.TrimFunc(x, unicode.IsSpace)
	if whole, frac, ok := strings.Cut(s, "."); ok {
		if frac == "" || strings.Trim(frac, "0") != "" {
			return pyNumber{}, false
		}
		s = whole
	}
	body := s
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	if !pyDigits(body, true) {
		return pyNumber{}, false
	}
	b, ok := new(big.Int).SetString(strings.ReplaceAll(strings.TrimPrefix(s, "+"), "_", ""), 10)
	if !ok {
		return pyNumber{}, false
	}
	return pyNumber{big: b}.norm(), true
}

// litErr is a Literal field's error.
func litErr(loc, got, want string) pydErr {
	return pydErr{loc: loc, typ: "literal_error", msg: "Input should be " + want, input: got}
}
