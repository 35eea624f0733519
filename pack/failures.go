package pack

import (
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/record"
)

// Failure kinds: what a real API answers when a well-formed call cannot
// be carried out at that moment.
const (
	FailDeclinedPayment = "declined_payment" // the payment method was declined (a gift card short of the amount)
	FailSoldOut         = "sold_out"         // nothing left to book or buy (the flight's seats)
	FailUnavailable     = "no_longer_available"
	FailConflict        = "conflict"     // the record changed under the call
	FailRateLimit       = "rate_limit"   // too many requests: try again shortly
	FailTimeout         = "timeout"      // the service did not answer in time
	FailServerError     = "server_error" // the service failed
)

// FailureKinds lists the failure kinds.
func FailureKinds() []string {
	return []string{FailDeclinedPayment, FailSoldOut, FailUnavailable, FailConflict, FailRateLimit, FailTimeout, FailServerError}
}

// Recoveries: what the policy prescribes after a failure.
const (
	// RecoverRetry: the agent says the service failed and calls again
	// with the same arguments, once.
	RecoverRetry = "retry"
	// RecoverTransfer: the agent apologises and transfers the customer
	// to a human agent.
	RecoverTransfer = "transfer"
	// RecoverAlternative: the agent says why the service turned the
	// customer's choice down (a card declined), asks for another of
	// their things, and makes the write with it on a new yes.
	RecoverAlternative = "alternative"
)

// Recoveries lists the recoveries.
func Recoveries() []string { return []string{RecoverRetry, RecoverTransfer, RecoverAlternative} }

// Failure is one failure a domain's write tools can return.
type Failure struct {
	Kind string `json:"kind"`
	// Tools are the write tools that can return it.
	Tools []string `json:"tools"`
	// Error is the text the tool returns (after "Error: ").
	Error string `json:"error"`
	// Recovery is what the policy prescribes: retry, transfer or
	// alternative.
	Recovery string `json:"recovery"`
	// Choice is, for the alternative recovery, the argument the customer
	// chooses again (payment_method_id): a choose argument of every tool
	// listed, which the model checks.
	Choice string `json:"choice,omitempty"`
}

// FailureFor returns the declared failure a tool's error output is, or
// nil.
func FailureFor(fs []Failure, tool, output string) *Failure {
	for i, f := range fs {
		if slices.Contains(f.Tools, tool) && strings.TrimPrefix(output, "Error: ") == f.Error {
			return &fs[i]
		}
	}
	return nil
}

func (c *checker) checkFailures() {
	for i, f := range c.man.Failures {
		at := loc("failures", strconv.Itoa(i))
		if !slices.Contains(FailureKinds(), f.Kind) {
			c.addY(child(at, "kind"), "failure kind %q: want one of %s", f.Kind, strings.Join(FailureKinds(), ", "))
		}
		if !slices.Contains(Recoveries(), f.Recovery) {
			c.addY(child(at, "recovery"), "recovery %q: want one of %s", f.Recovery, strings.Join(Recoveries(), ", "))
		}
		switch {
		case f.Recovery == RecoverAlternative && f.Choice == "":
			c.addY(child(at, "choice"), "the alternative recovery needs the argument the customer chooses again (e.g. choice: payment_method_id)")
		case f.Recovery != RecoverAlternative && f.Choice != "":
			c.addY(child(at, "choice"), "choice is for the alternative recovery only; this failure's recovery is %q", f.Recovery)
		}
		if strings.TrimSpace(f.Error) == "" {
			c.addY(child(at, "error"), "the error text the tool returns is empty")
		}
		if len(f.Tools) == 0 {
			c.addY(child(at, "tools"), "name the write tools that return it")
		}
		for k, t := range f.Tools {
			c.toolRef(loc("failures", strconv.Itoa(i), "tools", strconv.Itoa(k)), t, record.KindWrite)
		}
	}
}
