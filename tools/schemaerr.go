package tools

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// plainSchemaError says what is wrong with a call's arguments the way a
// real API answers a bad request ("item_ids must be an array",
// "payment_method_id is required"), not in the validator's own words
// ("/item_ids: got string, want array"). The observation is what the
// agent sees and what SFT and DPO rows train on: a model must learn to
// read an API's error, not the internals of synth's validator, which no
// deployed tool server prints.
func plainSchemaError(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "the arguments are invalid"
	}
	var parts []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		if s := plainKind(argPath(e.InstanceLocation), e.ErrorKind); s != "" && !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	walk(ve)
	if len(parts) == 0 {
		return "the arguments are invalid"
	}
	return strings.Join(parts, "; ")
}

// argPath names an argument as a caller writes it: flights[0].date.
func argPath(loc []string) string {
	var b strings.Builder
	for _, s := range loc {
		if _, err := strconv.Atoi(s); err == nil && b.Len() > 0 {
			b.WriteString("[" + s + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// plainKind words one validation failure of the argument at path ("" is
// the arguments object itself).
func plainKind(path string, k jsonschema.ErrorKind) string {
	subject := path
	subject = cmp.Or(subject, "the arguments")
	join := func(p, name string) string {
		if p == "" {
			return name
		}
		return p + "." + name
	}
	switch k := k.(type) {
	case *kind.Required:
		var names []string
		for _, m := range k.Missing {
			names = append(names, join(path, m))
		}
		if len(names) == 1 {
			return names[0] + " is required"
		}
		return strings.Join(names, ", ") + " are required"
	case *kind.AdditionalProperties:
		var names []string
		for _, m := range k.Properties {
			names = append(names, join(path, m))
		}
		return "unknown argument " + strings.Join(names, ", ")
	case *kind.Type:
		var want []string
		for _, w := range k.Want {
			want = append(want, article(w))
		}
		return subject + " must be " + strings.Join(want, " or ")
	case *kind.Enum:
		var want []string
		for _, w := range k.Want {
			want = append(want, fmt.Sprint(w))
		}
		return subject + " must be one of " + strings.Join(want, ", ")
	case *kind.Const:
		return fmt.Sprintf("%s must be %v", subject, k.Want)
	case *kind.Format:
		return fmt.Sprintf("%s is not a valid %s", subject, k.Want)
	case *kind.Pattern, *kind.ContentEncoding, *kind.ContentMediaType:
		return subject + " is not in the expected format"
	case *kind.MinLength:
		return fmt.Sprintf("%s must be at least %d characters long", subject, k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("%s must be at most %d characters long", subject, k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("%s must have at least %d items", subject, k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("%s must have at most %d items", subject, k.Want)
	case *kind.UniqueItems:
		return subject + " must not repeat items"
	case *kind.Minimum:
		return subject + " must be at least " + ratText(k.Want)
	case *kind.Maximum:
		return subject + " must be at most " + ratText(k.Want)
	case *kind.ExclusiveMinimum:
		return subject + " must be more than " + ratText(k.Want)
	case *kind.ExclusiveMaximum:
		return subject + " must be less than " + ratText(k.Want)
	case *kind.MultipleOf:
		return subject + " must be a multiple of " + ratText(k.Want)
	case *kind.MinProperties, *kind.MaxProperties, *kind.PropertyNames:
		return subject + " has the wrong number or names of fields"
	}
	return subject + " is invalid"
}

func article(t string) string {
	switch t {
	case "array", "object", "integer":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}

func ratText(r *big.Rat) string {
	if r == nil {
		return "the limit"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
