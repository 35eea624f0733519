package openapi

import (
	"slices"
	"strings"

	"github.com/pb33f/go-yaml"
	"github.com/synth-data/synth/pack"
)

// failureOf is the failure kind a documented error response stands for,
// and the recovery a policy prescribes for it: a busy or failing service
// is tried again, a refused payment or a resource gone is handed to a
// human. Other errors (400, 401, 404, 422) answer a wrong request, which
// the agent's own mistakes cover.
func failureOf(code string) (kind, recovery string) {
	switch {
	case code == "429":
		return pack.FailRateLimit, pack.RecoverRetry
	case code == "409":
		return pack.FailConflict, pack.RecoverRetry
	case code == "408" || code == "504":
		return pack.FailTimeout, pack.RecoverRetry
	case code == "402":
		return pack.FailDeclinedPayment, pack.RecoverTransfer
	case code == "410":
		return pack.FailUnavailable, pack.RecoverTransfer
	case len(code) == 3 && code[0] == '5' || strings.EqualFold(code, "5XX"):
		return pack.FailServerError, pack.RecoverRetry
	}
	return "", ""
}

// failureDefaults are the error texts of kinds whose response the spec
// does not describe.
var failureDefaults = map[string]string{
	pack.FailRateLimit:       "Too many requests: try again shortly",
	pack.FailConflict:        "Conflict: the resource was changed by another request",
	pack.FailTimeout:         "The request timed out",
	pack.FailDeclinedPayment: "Payment required: the payment was declined",
	pack.FailUnavailable:     "Gone: the resource is no longer available",
	pack.FailServerError:     "Internal server error",
}

// opFailures are the failures an operation's documented error responses
// stand for, in code order, one per kind; the error text is the
// response's description.
func opFailures(conv *converter, o *op) []pack.Failure {
	rs := get(o.Node, "responses")
	if rs == nil || rs.Kind != yaml.MappingNode {
		return nil
	}
	var codes []string
	nodes := map[string]*yaml.Node{}
	for i := 0; i+1 < len(rs.Content); i += 2 {
		codes = append(codes, rs.Content[i].Value)
		nodes[rs.Content[i].Value] = rs.Content[i+1]
	}
	slices.Sort(codes)
	var out []pack.Failure
	for _, code := range codes {
		kind, recovery := failureOf(code)
		if kind == "" || slices.ContainsFunc(out, func(f pack.Failure) bool { return f.Kind == kind }) {
			continue
		}
		text := failureDefaults[kind]
		if r, err := conv.followRef(nodes[code]); err == nil && r != nil {
			if d := strings.TrimSuffix(strings.TrimSpace(str(r, "description")), "."); d != "" && !strings.Contains(d, "\n") && len(d) <= 160 {
				text = d
			}
		}
		out = append(out, pack.Failure{Kind: kind, Tools: []string{o.Tool}, Error: text, Recovery: recovery})
	}
	return out
}

// failures merges the write operations' failures: one declaration per
// kind and text, naming every tool that returns it.
func failures(ops []*op) []pack.Failure {
	var out []pack.Failure
	for _, o := range ops {
		if o.Kind != "write" || o.Handler.Kind == hUnmapped {
			continue
		}
		for _, f := range o.Failures {
			i := slices.IndexFunc(out, func(g pack.Failure) bool { return g.Kind == f.Kind && g.Error == f.Error })
			if i < 0 {
				out = append(out, f)
				continue
			}
			out[i].Tools = append(out[i].Tools, f.Tools...)
		}
	}
	return out
}
