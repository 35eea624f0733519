package credit

import (
	"slices"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
)

// failures is how the labeler follows a task's declared tool failures
// (Blueprint.Failures; pack.Failure in the domain): a write the service
// fails for a passing reason is retried on the same yes, as verify's
// confirmation check allows, and a write it fails for good is the
// attempt the handover transfer of the ground truth stands for.
type failures struct {
	// known are the failures a tool error is read as: the domain's,
	// else (Label, no domain) the task's own.
	known []pack.Failure
	// writes are the last turn's write calls, by call id, until their
	// results come.
	writes map[string]record.FunctionCall
	// retry is the last write when the service failed it for a reason
	// the policy says to retry (a timeout): the same call again needs no
	// yes of its own. retryStep is the chain step that write matched,
	// whose retry is then the gold, -1 for none.
	retry     *record.FunctionCall
	retryStep int
	// attempt is the ground truth's handover transfer that stands for a
	// write the service is yet to fail for good (a declined payment),
	// -1 for none or once failed: until then the ground truth calls for
	// that write as for any other (asking its pieces, proposing it,
	// making it on the yes). attemptTool is its tool, attemptNeeds the
	// reads it needs.
	attempt      int
	attemptTool  string
	attemptNeeds []int
	// attempted are the confirmed calls of the attempt's tool off the
	// chain, by call id, with their message: the one the service fails
	// is the attempt, any other is a wrong write.
	attempted map[string]int
	// declines is the tool whose write the service turns down for the
	// customer's first choice (a card declined) before they name
	// another, "" for none or once turned down: that confirmed write off
	// the chain is no mistake when the service fails it so.
	declines string
}

func newFailures(m *model.Model, bp *record.Blueprint) failures {
	fs := failures{writes: map[string]record.FunctionCall{}, retryStep: -1, attempt: -1, attempted: map[string]int{}}
	if m != nil {
		fs.known = m.Failures
	} else {
		for _, f := range bp.Failures {
			fs.known = append(fs.known, pack.Failure{Kind: f.Kind, Tools: []string{f.Tool}, Error: f.Error, Recovery: f.Recovery})
		}
	}
	n := len(bp.Actions)
	for _, f := range bp.Failures {
		if f.Recovery == pack.RecoverAlternative {
			fs.declines = f.Tool
		}
		if f.Recovery != pack.RecoverTransfer || n == 0 || !handsOver(bp.Actions[n-1]) {
			continue
		}
		fs.attempt, fs.attemptTool, fs.attemptNeeds = n-1, f.Tool, attemptNeeds(bp)
	}
	return fs
}

// attemptNeeds are the reads the write a handover stands for needed,
// which the ground truth dropped with it: the reads no write of the
// chain serves (the failed request's own lookups), what they need in
// turn, and the reads every write of the chain needs (the customer's
// record).
func attemptNeeds(bp *record.Blueprint) []int {
	served := map[int]bool{}
	var every []int
	first := true
	for _, a := range bp.Actions {
		if a.Kind != record.KindWrite {
			continue
		}
		for _, r := range a.Needs {
			served[r] = true
		}
		if first {
			every, first = slices.Clone(a.Needs), false
		} else {
			every = slices.DeleteFunc(every, func(r int) bool { return !slices.Contains(a.Needs, r) })
		}
	}
	needs := every
	for i, a := range bp.Actions {
		if a.Kind == record.KindRead && !served[i] {
			needs = append(needs, i)
			needs = append(needs, a.Needs...)
		}
	}
	slices.Sort(needs)
	return slices.Compact(needs)
}

// confirmed reports whether a write call has the customer's yes: a
// confirmation since the last write, or the same call as the write the
// service just failed for a reason to retry.
func (lb *labeler) confirmed(fc record.FunctionCall) bool {
	return lb.confirm >= 0 || lb.fail.retry != nil && *lb.fail.retry == fc
}

// attempting reports whether a confirmed write off the chain may be the
// write a handover stands for, or the one the service turns down for the
// customer's first choice, to be told by its result.
func (lb *labeler) attempting(tool string) bool {
	return lb.fail.attempt >= 0 && tool == lb.fail.attemptTool && lb.out.Steps[lb.fail.attempt].By == "" || tool == lb.fail.declines
}

// failed reads a write's error result: a chain write that failed did not
// do its step; a declared failure to retry makes the same call again
// the gold, on the same yes; the one that fails the attempt for good
// makes the handover owed, and was no mistake.
func (lb *labeler) failed(id, content string) {
	u, chain := lb.pending[id]
	if chain {
		lb.undo(u)
	}
	msg, attempted := lb.fail.attempted[id]
	delete(lb.fail.attempted, id)
	fc, ok := lb.fail.writes[id]
	var f *pack.Failure
	if ok {
		f = pack.FailureFor(lb.fail.known, fc.Name, content)
	}
	switch {
	case f != nil && f.Recovery == pack.RecoverRetry:
		lb.fail.retry, lb.fail.retryStep = &fc, -1
		if chain {
			lb.fail.retryStep = u.action
		}
	case f != nil && f.Recovery == pack.RecoverTransfer && attempted:
		lb.fail.attempt = -1
		return
	case f != nil && f.Recovery == pack.RecoverAlternative && attempted:
		lb.fail.declines = ""
		return
	}
	if attempted {
		lb.mistake(msg, true)
	}
}

// result reads a write's result that is no error: a confirmed write off
// the chain that went through was a wrong one after all.
func (lb *labeler) result(id string) {
	if msg, ok := lb.fail.attempted[id]; ok {
		delete(lb.fail.attempted, id)
		lb.mistake(msg, true)
	}
}

// needs are the reads a write of the chain needs, or the attempt a
// handover stands for.
func (lb *labeler) needs(write int) []int {
	if write == lb.fail.attempt {
		return lb.fail.attemptNeeds
	}
	return lb.bp.Actions[write].Needs
}
