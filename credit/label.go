package credit

import (
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
	"github.com/synth-data/synth/usersim"
	"github.com/synth-data/synth/verify"
)

// Action classes of an assistant message. A message with tool calls is
// classed by its calls: write when one of them writes, else transfer
// when one hands over to a human, else read (generic for a tool of no
// known kind); a message in words by what it asks of the customer.
const (
	ClassRead     = "read"
	ClassWrite    = "write"
	ClassGeneric  = "generic"
	ClassAsk      = "ask"
	ClassConfirm  = "confirm"
	ClassInform   = "inform"
	ClassRefuse   = "refuse"
	ClassTransfer = "transfer"
)

// Where a write argument's value came from.
const (
	SourceTool = "tool" // a tool result, at Arg.At
	SourceUser = "user" // a customer message
	SourceNone = "none" // nothing before the call said it
)

// Labels are one dialogue's credit labels.
type Labels struct {
	// ChainLength is the number of ground-truth actions (C).
	ChainLength int `json:"chain_length"`
	// Progress is the number of chain steps done (k): the last turn's
	// progress.
	Progress int `json:"progress"`
	// Coverage is k/C, the share of the chain steps the labels tie to a
	// turn (V_d); 1 for a chain of none, and for every verified dialogue.
	Coverage float64 `json:"coverage"`
	// Pivotal is the message index of the first off-chain or wrong
	// assistant turn of a failed dialogue, or of a recovery's mistake
	// that the customer caught; -1 when there is none.
	Pivotal int `json:"pivotal"`
	// Correcting is, in a recovery dialogue, the message index of the
	// assistant turn that answers the customer's correction; -1 otherwise.
	Correcting int `json:"correcting"`
	// MistakeFrom is, in a recovery dialogue, the message index of the
	// first assistant turn of the mistake: the first that is not the
	// oracle's (record.Trajectory.Departs), at or before Pivotal; -1
	// otherwise.
	MistakeFrom int `json:"mistake_from"`
	// Outcome is the verdict: 1 passed, 0 failed, null for a dialogue
	// not (yet) verified.
	Outcome *int `json:"outcome"`
	// Steps label the ground-truth actions in order: the turn that did
	// each.
	Steps []Step `json:"steps"`
	// Turns label the assistant messages in order.
	Turns []Turn `json:"turns"`
}

// How a chain step was done (Step.By).
const (
	// ByCall: a call with the step's tool and arguments.
	ByCall = "call"
	// ByWrite: a read the dialogue did without, done by the matched
	// write that needs it (the write's values came another way; its
	// arguments' provenance says from where).
	ByWrite = "write"
	// ByOutcome: a step a verified dialogue reached another way (a read
	// no write needs, whose figures were said; a write whose state
	// another call made, as the state check found), done at the agent's
	// last turn: a verified dialogue covers its chain.
	ByOutcome = "outcome"
)

// Step labels one ground-truth action.
type Step struct {
	// Message is the assistant message that did it, -1 for none yet.
	Message int `json:"message"`
	// By is call, write or outcome; "" while not done.
	By string `json:"by"`
}

// Turn labels one assistant message.
type Turn struct {
	// Message is the index in the trajectory's messages.
	Message int    `json:"message"`
	Class   string `json:"class"`
	// Gold is the class the ground truth calls for at this point, from
	// the chain's first step not yet done: its call (read, write,
	// transfer), an ask while the customer has not said a value the call
	// needs, the confirmation before a write; refuse for a forbidden
	// request before the next goal's write; with the chain done, a refusal
	// or transfer still owed, else inform. Where the ground truth admits
	// the turn's own class as well (admits: the chain orders its steps,
	// a policy may take them in another order as right), gold is that
	// class. Gold Action Recall is the share of turns whose class is
	// their gold.
	Gold string `json:"gold"`
	// OnChain: every call matches a ground-truth action, or the words
	// are a step the ground truth needs (the confirmation of the chain
	// write that follows, the first statement of a required output, the
	// refusal of a forbidden request, the announced transfer).
	OnChain bool `json:"on_chain"`
	// Serves is the index in the blueprint's actions of the write this
	// turn serves (the write itself, the read it needs, its
	// confirmation), -1 for none.
	Serves int `json:"serves"`
	// Progress is the number of chain steps done up to and including
	// this turn: the ground-truth actions its calls and the earlier
	// turns' matched, and the reads a matched write needs.
	Progress int `json:"progress"`
	// Calls label the message's tool calls in order.
	Calls []Call `json:"calls"`
}

// Call labels one tool call.
type Call struct {
	Tool string `json:"tool"`
	Kind string `json:"kind"`
	// Action is the index of the ground-truth action the call matches
	// (same tool, same arguments), -1 for an off-chain call.
	Action int `json:"action"`
	// Args give a write's argument values their provenance, leaf by
	// leaf in key order; empty for other calls.
	Args []Arg `json:"args"`
}

// Arg is one write argument's provenance.
type Arg struct {
	// Path is the value's JSON path in the call's arguments ($.order_id,
	// $.item_ids[0]).
	Path string `json:"path"`
	// Source is tool, user or none.
	Source string `json:"source"`
	// Message is the index of the tool or customer message where the
	// value first appeared, -1 for none.
	Message int `json:"message"`
	// At is the value's JSON path in that tool result, "" otherwise.
	At string `json:"at"`
}

// Label labels a dialogue against its blueprint, v nil for one not (yet)
// verified, t possibly unfinished, knowing nothing of its domain: tool
// kinds come from the ground truth (a call to a tool outside it is
// classed generic) and words are read by the retail rules alone.
// LabelDomain avoids both.
func Label(bp *record.Blueprint, t *record.Trajectory, v *record.Verdict) Labels {
	return label(nil, nil, bp, t, v)
}

// LabelDomain is Label with the domain's tool kinds, which class a call
// to a tool the ground truth does not use (a wrong write), and its words,
// which read what its agents ask for ("your user id", "the cabin") as
// its customer's Listener does. synth run, validate, serve and the llm
// engine's rejected records all label through it. A nil domain is
// Label; a nil blueprint or trajectory labels as an empty one.
func LabelDomain(d *domain.Domain, bp *record.Blueprint, t *record.Trajectory, v *record.Verdict) Labels {
	if d == nil {
		return Label(bp, t, v)
	}
	return label(d.Tools, d.Model, bp, t, v)
}

func label(k *tools.Toolkit, m *model.Model, bp *record.Blueprint, t *record.Trajectory, v *record.Verdict) Labels {
	if bp == nil {
		bp = &record.Blueprint{}
	}
	if t == nil {
		t = &record.Trajectory{}
	}
	lb := newLabeler(k, m, bp, v)
	lb.add(t.Messages, 0)
	return lb.finish(t)
}

// add walks messages, the first at index from: each message's labels
// depend only on the messages before it, so a dialogue can be walked in
// pieces as it grows.
func (lb *labeler) add(msgs []record.Message, from int) {
	for j, m := range msgs {
		i := from + j
		switch m.Role {
		case "assistant":
			lb.assistant(i, m)
		case "tool":
			lb.prov.tool(i, m.Content)
			if strings.HasPrefix(m.Content, toolError) {
				lb.failed(m.ToolCallID, m.Content)
			} else {
				lb.result(m.ToolCallID)
			}
		case "user":
			lb.prov.user(i, m.Content)
		}
	}
}

// Growing labels a dialogue not yet verified as it grows, turn by turn,
// instead of from its start at every step (synth serve). Its Labels
// equal LabelDomain's with no verdict; once the dialogue is verified,
// LabelDomain labels it with the verdict, which decides how a write
// matches the chain.
type Growing struct {
	lb *labeler
	n  int // messages walked
}

// NewGrowing starts labelling a dialogue of the blueprint in the domain
// (nil: Label's kinds and words).
func NewGrowing(d *domain.Domain, bp *record.Blueprint) *Growing {
	if bp == nil {
		bp = &record.Blueprint{}
	}
	var lb *labeler
	if d == nil {
		lb = newLabeler(nil, nil, bp, nil)
	} else {
		lb = newLabeler(d.Tools, d.Model, bp, nil)
	}
	return &Growing{lb: lb}
}

// Labels labels t, whose first messages are those of the earlier calls:
// only the messages past them are walked.
func (g *Growing) Labels(t *record.Trajectory) Labels {
	if t == nil {
		t = &record.Trajectory{}
	}
	if len(t.Messages) > g.n {
		g.lb.add(t.Messages[g.n:], g.n)
		g.n = len(t.Messages)
	}
	out := g.lb.finish(t)
	// A later write marks its confirmation on the chain: the caller's
	// copy stays as it was.
	out.Steps, out.Turns = slices.Clone(out.Steps), slices.Clone(out.Turns)
	return out
}

// labeler carries the walk over one dialogue.
type labeler struct {
	kinds   *tools.Toolkit // nil: the ground truth's kinds only
	model   *model.Model   // nil: the retail rules' words only
	bp      *record.Blueprint
	v       *record.Verdict
	serves  []int // per action: the write it serves
	args    []any // per action: its decoded arguments
	out     Labels
	confirm int // index in out.Turns of the last confirm since the last write, -1 none
	said    []bool
	wrong   int // message index of the first wrong turn, -1 none
	refuse  bool
	xfer    bool
	prov    provenance
	pieces  [][]piece // goalPieces
	// askedFor holds the pieces the agent asked for by name.
	askedFor map[string]bool
	asking   string     // the piece the turn being labelled asks for
	wrote    bool       // the last turn was a write
	handed   bool       // the last turn called the transfer tool
	isKnown  []bool     // per action: known found it said
	values   [][]string // per action: its arguments' scalars, walked once
	refused  bool       // the last turn refused
	refusing bool       // the words of the turn being labelled refuse
	// refuseGoals are the forbidden requests' goals in order; refusals
	// counts the refusals so far, transferred a transfer.
	refuseGoals []int
	refusals    int
	transferred bool
	// pending are the chain writes the last turn did, by call id, until
	// their results come: one that fails did not do its step.
	pending map[string]undo
	fail    failures
}

// toolError opens a failed call's result (tools.Toolkit answers an
// error so, as a real tool server would).
const toolError = "Error: "

// undo is what a chain write's call did to the labels.
type undo struct {
	turn, call, action int   // the turn (in out.Turns), its call, the step
	reads              []int // the reads the write did for the dialogue
}

// undo takes back a chain write whose call failed (a tool error: a gift
// card short of the total): the step is still owed, and the retry that
// succeeds does it, so the retry and its confirmation are gold.
func (lb *labeler) undo(u undo) {
	for _, a := range append([]int{u.action}, u.reads...) {
		lb.out.Steps[a] = Step{Message: -1}
		lb.out.Progress--
	}
	tu := &lb.out.Turns[u.turn]
	// A copy: labels handed out before (Growing) keep their calls.
	tu.Calls = slices.Clone(tu.Calls)
	tu.Calls[u.call].Action = -1
	tu.OnChain = false
	tu.Progress -= 1 + len(u.reads)
}

func newLabeler(k *tools.Toolkit, m *model.Model, bp *record.Blueprint, v *record.Verdict) *labeler {
	n := len(bp.Actions)
	lb := &labeler{kinds: k, model: m, bp: bp, v: v, serves: make([]int, n), args: make([]any, n),
		confirm: -1, said: make([]bool, len(bp.Outputs)), wrong: -1,
		pieces: goalPieces(m, bp), askedFor: map[string]bool{}, isKnown: make([]bool, n), values: make([][]string, n), pending: map[string]undo{},
		out: Labels{ChainLength: n, Pivotal: -1, Correcting: -1, MistakeFrom: -1, Steps: make([]Step, n), Turns: []Turn{}}}
	lb.prov.name = strings.ToLower(bp.Persona.Name)
	lb.fail = newFailures(m, bp)
	for i, a := range bp.Actions {
		lb.out.Steps[i].Message = -1
		lb.serves[i] = -1
		if a.Kind == record.KindWrite {
			lb.serves[i] = i
		}
		lb.args[i], _ = tools.DecodeJSON(a.Arguments)
	}
	for j, a := range bp.Actions {
		if a.Kind != record.KindWrite {
			continue
		}
		for _, r := range a.Needs {
			if r >= 0 && r < n && lb.serves[r] < 0 {
				lb.serves[r] = j
			}
		}
	}
	for i, g := range bp.Goals {
		if g.Kind == record.GoalRefuse {
			lb.refuse = true
			lb.refuseGoals = append(lb.refuseGoals, i)
		}
		lb.xfer = lb.xfer || g.Kind == record.GoalTransfer
	}
	return lb
}

// kind is a tool's kind: the domain's, else the ground truth's, else
// the task's tool failures'.
func (lb *labeler) kind(tool string) string {
	if lb.kinds != nil {
		if k := lb.kinds.Kind(tool); k != "" {
			return k
		}
	}
	for _, a := range lb.bp.Actions {
		if a.Tool == tool {
			return a.Kind
		}
	}
	// Only writes fail so (pack.Failure): a write a handover replaced is
	// in the ground truth no more.
	for _, f := range lb.bp.Failures {
		if f.Tool == tool {
			return record.KindWrite
		}
	}
	return ""
}

func (lb *labeler) assistant(i int, m record.Message) {
	tu := Turn{Message: i, Serves: -1, Calls: []Call{}}
	gold, next := lb.gold(), lb.nextWrite()
	var alt []string
	if len(m.ToolCalls) == 0 {
		tu.Class = lb.textClass(m.Content)
		alt = lb.admits(gold, next, tu.Class)
		lb.text(&tu, m.Content)
	} else {
		alt = lb.admits(gold, next, "")
		lb.calls(&tu, m.ToolCalls)
		if tu.Class == ClassRead && next >= 0 && lb.rereads(tu.Calls, next) {
			// Reading again what the next write needs (the records of a
			// later request, looked up afresh) is on its way.
			alt = append(alt, ClassRead)
		}
	}
	if lb.asking != "" {
		lb.askedFor[lb.asking], lb.asking = true, ""
	}
	tu.Gold = gold
	if slices.Contains(alt, lookup) && tu.Class == ClassRead && lb.saidValues(m.ToolCalls) {
		tu.Gold = ClassRead
	}
	if slices.Contains(alt, tu.Class) {
		tu.Gold = tu.Class
	}
	tu.Progress = lb.out.Progress
	if tu.Class != ClassRefuse && gold == ClassRefuse && lb.refusing {
		lb.refusals++
	}
	switch tu.Class {
	case ClassConfirm:
		lb.confirm = len(lb.out.Turns)
	case ClassRefuse:
		lb.refusals++
	case ClassTransfer:
		lb.transferred = true
	}
	lb.wrote = tu.Class == ClassWrite
	lb.handed = tu.Class == ClassTransfer && len(m.ToolCalls) > 0
	lb.refused = tu.Class == ClassRefuse || gold == ClassRefuse && lb.refusing
	lb.refusing = false
	lb.out.Turns = append(lb.out.Turns, tu)
}

// gold is the class the ground truth calls for before the next turn.
func (lb *labeler) gold() string {
	owed := -1 // the forbidden request not yet refused
	if lb.refusals < len(lb.refuseGoals) {
		owed = lb.refuseGoals[lb.refusals]
	}
	for i, st := range lb.out.Steps {
		if st.By != "" {
			continue
		}
		a := lb.bp.Actions[i]
		switch {
		case owed >= 0 && owed < lb.goalOf(i):
			// The forbidden request is refused before anything of a later
			// request is done, the reads its write needs included.
			return ClassRefuse
		case i == lb.fail.attempt:
			return lb.attemptGold(i)
		case !lb.known(i) && !handsOver(a) && (a.Kind != record.KindWrite || lb.unstated(i)):
			// A write's value no message spells as its argument does
			// ("basic economy" for basic_economy) is said once the
			// customer stated every piece of its request. A transfer's
			// summary is the agent's own words: nobody says it first.
			return ClassAsk
		case a.Kind == record.KindWrite && lb.confirm < 0 && lb.fail.retryStep != i:
			// A write the service failed for a reason to retry is made
			// again on the same yes.
			return ClassConfirm
		case a.Kind == record.KindWrite:
			return ClassWrite
		case handsOver(a):
			return ClassTransfer
		case a.Kind == record.KindGeneric:
			return ClassGeneric
		}
		return ClassRead
	}
	switch {
	case owed >= 0:
		return ClassRefuse
	case lb.xfer && !lb.transferred:
		return ClassTransfer
	}
	return ClassInform
}

// admits lists the classes besides gold that the ground truth also
// calls for at this point, for a turn in words of the class given (""
// for calls): the chain orders its steps, but a policy may take them in
// another order that is as right. An ask while the customer has not said
// a piece the next write's request needs (the record it concerns, the
// items, their replacements, a slot's value: a tool result may list the
// candidates, it does not say which one the customer means); the
// confirmation before the next write, or the write once confirmed,
// when the customer has said all its values and only reads it needs,
// which it can do without, come before it.
func (lb *labeler) admits(gold string, next int, class string) []string {
	var alt []string
	if class == ClassAsk && lb.unstated(next) {
		alt = append(alt, ClassAsk)
	}
	if gold == ClassRefuse && lb.refusing {
		// The refusal with the plan B it proposes, or a question after it.
		alt = append(alt, class)
	}
	if class == ClassRefuse && lb.refused && lb.refuse {
		// The customer pushed back on a refusal: it is held.
		alt = append(alt, ClassRefuse)
	}
	if class == ClassInform && lb.wrote {
		// Right after a write, its outcome is reported (the figure it
		// made); the customer raises the next request, if any, after it.
		alt = append(alt, ClassInform)
	}
	if class == ClassTransfer && lb.handed {
		// Right after the transfer call, the agent tells the customer
		// they are being transferred (the message the policy prescribes).
		alt = append(alt, ClassTransfer)
	}
	if class == ClassConfirm && gold == ClassWrite {
		// Proposing the write again before doing it (the customer's
		// reply was not a yes to it) asks the same consent.
		alt = append(alt, ClassConfirm)
	}
	if (gold == ClassAsk || gold == ClassRefuse) && class == "" {
		// Looking up what the customer said (an id they misspelt) is as
		// right as asking again, and reading the records of a forbidden
		// request is how its refusal is found owed; assistant admits
		// such a read by its values.
		alt = append(alt, lookup)
	}
	if next >= 0 && (gold == ClassRead || gold == ClassAsk) && lb.onlyNeeds(next) && lb.known(next) {
		if lb.confirm < 0 {
			alt = append(alt, ClassConfirm)
		} else {
			alt = append(alt, ClassWrite)
		}
	}
	return alt
}

// known reports whether every value of a ground-truth action was said.
// What was said stays said, so an action found known is not looked up
// again.
func (lb *labeler) known(action int) bool {
	if !lb.isKnown[action] {
		if lb.values[action] == nil {
			lb.values[action] = []string{}
			walk(lb.args[action], func(_ func() string, text string) {
				lb.values[action] = append(lb.values[action], text)
			})
		}
		lb.isKnown[action] = lb.prov.knownValues(lb.values[action])
	}
	return lb.isKnown[action]
}

// lookup stands in admits for a read of values someone said.
const lookup = "lookup"

// saidValues reports whether every call's values were said before it.
func (lb *labeler) saidValues(tcs []record.ToolCall) bool {
	for _, tc := range tcs {
		args, err := tools.DecodeJSON(tc.Function.Arguments)
		if err != nil || !lb.prov.known(args) {
			return false
		}
	}
	return true
}

// unstated reports whether the customer has not yet said a piece of
// the request of the write given (every request's, when no write is
// left): the target, an item, a replacement or a slot's value, by its
// label, its id or the value, or by answering the agent's question for
// it (a slot's value said in words: "two checked bags" for 2).
//
// A piece of a later request is stated by what the customer said after
// the last write of another request: the same passenger or payment
// method named for an earlier booking does not say it for this one, and
// the agent rightly asks again.
func (lb *labeler) unstated(write int) bool {
	for g, pieces := range lb.pieces {
		if write >= 0 && g != lb.bp.Actions[write].Goal {
			continue
		}
		since := lb.lastWriteBefore(g)
		said := func(w string) bool { return lb.prov.saidAfter(w, since) }
		for _, pc := range pieces {
			if !slices.ContainsFunc(pc.names, lb.asked) && !slices.ContainsFunc(pc.words, said) {
				return true
			}
		}
	}
	return false
}

// lastWriteBefore is the message of the last write done so far of a
// goal other than g, -1 for none.
func (lb *labeler) lastWriteBefore(g int) int {
	last := -1
	for i, st := range lb.out.Steps {
		if a := lb.bp.Actions[i]; st.By != "" && a.Kind == record.KindWrite && a.Goal != g {
			last = max(last, st.Message)
		}
	}
	return last
}

// asked reports whether the agent asked for a piece by its name.
func (lb *labeler) asked(name string) bool { return lb.askedFor[name] }

// onlyNeeds reports whether every chain step not yet done before the
// write is a read it needs.
func (lb *labeler) onlyNeeds(write int) bool {
	for i, st := range lb.out.Steps[:write] {
		if st.By == "" && (lb.bp.Actions[i].Kind != record.KindRead || !slices.Contains(lb.needs(write), i)) {
			return false
		}
	}
	return true
}

// piece is something a customer states for a request: the words any of
// which say it, and the names the customer's Listener reads a question
// for it as (usersim's pieces: target, choice:item_ids, slot:reason).
type piece struct {
	words, names []string
}

// goalPieces lists, per goal, the pieces its customer states. A slot's
// value is said as its customer says it (usersim.SlotWords: "two
// checked bags" for 2), or as the value; a customer who changes its mind
// states the slot with its first value, which the agent rightly
// proposes before the change.
func goalPieces(m *model.Model, bp *record.Blueprint) [][]piece {
	out := make([][]piece, len(bp.Goals))
	sel := func(s record.Selector, names ...string) piece {
		pc := piece{names: names}
		for _, x := range []string{s.Label, s.ID} {
			if x != "" {
				pc.words = append(pc.words, x)
			}
		}
		return pc
	}
	for i, g := range bp.Goals {
		var ps []piece
		if g.Target.Label != "" || g.Target.ID != "" {
			ps = append(ps, sel(g.Target, "target"))
		}
		for _, s := range g.Items {
			ps = append(ps, sel(s, "choice:"+s.Collection, "slot:"+s.Collection))
		}
		for _, s := range g.New {
			ps = append(ps, sel(s, "new:"+s.Collection))
		}
		for _, k := range slices.Sorted(maps.Keys(g.Slots)) {
			if v := g.Slots[k]; v != "" {
				var words []string
				for _, x := range []string{v, g.Revised[k]} {
					if x != "" {
						words = append(words, x, usersim.SlotWords(m, g, k, x))
					}
				}
				ps = append(ps, piece{words: slices.Compact(words), names: []string{"slot:" + k, "choice:" + k}})
			}
		}
		out[i] = ps
	}
	return out
}

// handsOver reports whether an action hands the customer to a human.
func handsOver(a record.Action) bool {
	return a.Kind == record.KindGeneric && strings.Contains(a.Tool, "transfer")
}

// goalOf is the goal of an action, or of the write it serves.
func (lb *labeler) goalOf(action int) int {
	if g := lb.bp.Actions[action].Goal; g >= 0 {
		return g
	}
	if w := lb.serves[action]; w >= 0 {
		return lb.bp.Actions[w].Goal
	}
	return -1
}

// attemptGold is the class the ground truth calls for while its next
// step is a handover that stands for a write the service is yet to fail:
// that write's, asked for, proposed and made as any other's.
func (lb *labeler) attemptGold(i int) string {
	switch {
	case lb.unstated(i):
		return ClassAsk
	case lb.confirm < 0:
		return ClassConfirm
	}
	return ClassWrite
}

// nextWrite is the first ground-truth write not yet done, or the
// handover that stands for a write yet to fail, -1 for none.
func (lb *labeler) nextWrite() int {
	for i, st := range lb.out.Steps {
		if st.By == "" && (lb.bp.Actions[i].Kind == record.KindWrite || i == lb.fail.attempt) {
			return i
		}
	}
	return -1
}

// rereads reports whether every call matches a read the write needs.
func (lb *labeler) rereads(calls []Call, write int) bool {
	needs := lb.needs(write)
	for _, c := range calls {
		if c.Action < 0 || !slices.Contains(needs, c.Action) {
			return false
		}
	}
	return true
}

// Mistakes are the messages of a recovery dialogue's mistake, which its
// SFT row gives weight 0: the assistant messages from the first one that
// is not the oracle's (MistakeFrom) up to the correcting one, exclusive.
// The mistake can start turns before the proposal the customer caught
// (Pivotal, the last before the correction): a near-miss pick is made
// and announced at the search's report, and a read of the wrong record
// follows it; all of that is the flawed agent's, none of it a target.
// None for any other dialogue.
func Mistakes(l Labels) []int {
	if l.MistakeFrom < 0 || l.Pivotal < 0 || l.Correcting < 0 {
		return nil
	}
	var out []int
	for _, tu := range l.Turns {
		if tu.Message >= l.MistakeFrom && tu.Message < l.Correcting {
			out = append(out, tu.Message)
		}
	}
	return out
}

// GoldRecall counts the turns whose class is their gold, and the turns.
func GoldRecall(l Labels) (matched, turns int) {
	for _, tu := range l.Turns {
		if tu.Class == tu.Gold {
			matched++
		}
	}
	return matched, len(l.Turns)
}

// textClass reads an agent's words as the customer's Listener does, with
// the domain's words when the labeler has them (usersim.ReadAsk), and
// notes the piece a question asks for and whether the words refuse.
func (lb *labeler) textClass(text string) string {
	lb.refusing = usersim.Refuses(text)
	ask, matched := usersim.ReadAsk(lb.model, lb.bp, text)
	if ask.Kind == "piece" {
		// Asked again, the piece was not stated: the customer's reply
		// was about something else; it is once the customer replies.
		lb.asking = ask.Piece
		delete(lb.askedFor, ask.Piece)
	}
	switch ask.Kind {
	case "transferred":
		return ClassTransfer
	case "confirm":
		return ClassConfirm
	case "identify", "identify_again", "piece":
		return ClassAsk
	}
	switch {
	case lb.refusing:
		return ClassRefuse
	case !matched && lb.model == nil && strings.Contains(text, "?"):
		// Without the domain's words, a question no rule knows is taken
		// to ask for a piece of the domain's own; with them, such a
		// question ("What else can I do for you?") asks for nothing.
		return ClassAsk
	}
	return ClassInform
}

func (lb *labeler) text(tu *Turn, content string) {
	switch tu.Class {
	case ClassRefuse:
		tu.OnChain = lb.refuse
		lb.mistake(tu.Message, !lb.refuse)
	case ClassTransfer:
		tu.OnChain = lb.xfer
		lb.mistake(tu.Message, !lb.xfer)
	}
	for j, o := range lb.bp.Outputs {
		if !lb.said[j] && verify.SaysOutput(content, o.Value) {
			lb.said[j] = true
			tu.OnChain = true
		}
	}
}

func (lb *labeler) calls(tu *Turn, tcs []record.ToolCall) {
	write, xfer, known := false, false, true
	tu.OnChain = true
	clear(lb.pending)
	clear(lb.fail.writes)
	for k, tc := range tcs {
		c := Call{Tool: tc.Function.Name, Kind: lb.kind(tc.Function.Name), Action: -1, Args: []Arg{}}
		args, _ := tools.DecodeJSON(tc.Function.Arguments)
		fresh := false
		c.Action, fresh = lb.match(c.Tool, args, c.Kind == record.KindWrite)
		switch c.Kind {
		case record.KindWrite:
			write = true
			c.Args = lb.prov.args(args)
			if fresh && lb.confirm >= 0 {
				conf := &lb.out.Turns[lb.confirm]
				conf.OnChain, conf.Serves = true, c.Action
			}
			// Every write needs the customer's yes since the last one (or
			// is the retry of one that had it); a confirmed write off the
			// chain may be the attempt a handover stands for, which its
			// result tells.
			yes := lb.confirmed(tc.Function)
			if c.Action < 0 && yes && lb.attempting(c.Tool) {
				lb.fail.attempted[tc.ID] = tu.Message
			} else {
				lb.mistake(tu.Message, c.Action < 0 || !yes)
			}
			lb.confirm = -1
			lb.fail.retry, lb.fail.retryStep = nil, -1
			lb.fail.writes[tc.ID] = tc.Function
		case record.KindGeneric:
			if strings.Contains(c.Tool, "transfer") {
				xfer = true
			}
		case "":
			known = false
		}
		if c.Action < 0 {
			// A read off the chain looks around; one with a value nobody
			// said (an id made up) is a mistake, as a write off it is
			// (above).
			tu.OnChain = false
			lb.mistake(tu.Message, c.Kind != record.KindWrite && !lb.prov.known(args))
		} else if tu.Serves < 0 || c.Kind == record.KindWrite {
			tu.Serves = lb.serves[c.Action]
		}
		if fresh {
			lb.did(c.Action, tu.Message, ByCall)
			if c.Kind == record.KindWrite {
				u := undo{turn: len(lb.out.Turns), call: k, action: c.Action}
				for _, r := range lb.bp.Actions[c.Action].Needs {
					if r >= 0 && r < len(lb.out.Steps) && lb.out.Steps[r].By == "" {
						lb.did(r, tu.Message, ByWrite)
						u.reads = append(u.reads, r)
					}
				}
				lb.pending[tc.ID] = u
			}
		}
		tu.Calls = append(tu.Calls, c)
	}
	switch {
	case write:
		tu.Class = ClassWrite
	case xfer:
		tu.Class = ClassTransfer
	case !known:
		tu.Class = ClassGeneric
	default:
		tu.Class = ClassRead
		for _, c := range tu.Calls {
			if c.Kind == record.KindGeneric {
				tu.Class = ClassGeneric
			}
		}
	}
}

// did marks a chain step done.
func (lb *labeler) did(action, msg int, by string) {
	lb.out.Steps[action] = Step{Message: msg, By: by}
	lb.out.Progress++
}

// match finds the ground-truth action a call matches: one not yet
// matched with the same tool and arguments, else one already matched (a
// repeated read), else, in a verified dialogue, a write of the same tool
// not yet matched: the state check has shown its arguments reach the
// ground truth's state (ids in another order, an equivalent address).
// fresh says the action was not matched before.
func (lb *labeler) match(tool string, args any, write bool) (action int, fresh bool) {
	again := -1
	for i, a := range lb.bp.Actions {
		if a.Tool != tool || !reflect.DeepEqual(args, lb.args[i]) {
			continue
		}
		if lb.out.Steps[i].By == "" {
			return i, true
		}
		if again < 0 {
			again = i
		}
	}
	if again >= 0 {
		return again, false
	}
	if write && lb.v != nil && lb.v.Passed {
		for i, a := range lb.bp.Actions {
			if a.Tool == tool && lb.out.Steps[i].By == "" {
				return i, true
			}
		}
	}
	return -1, false
}

// mistake notes the first wrong turn.
func (lb *labeler) mistake(msg int, wrong bool) {
	if wrong && lb.wrong < 0 {
		lb.wrong = msg
	}
}

// madeUp is, for a dialogue the grounded rule failed, the agent's first
// turn that names the id it made up: the proposal that states it, when
// one came before the call the rule names. -1 otherwise.
func (lb *labeler) madeUp(turns []Turn, t *record.Trajectory) int {
	c := lb.v.Failed()
	if c == nil || !strings.HasPrefix(c.Name, verify.RulePrefix+pack.RuleGrounded+":") {
		return -1
	}
	m, id := messageAt.FindStringSubmatch(c.Reason), quoted.FindStringSubmatch(c.Reason)
	if m == nil || id == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	for _, tu := range turns {
		if tu.Message <= n && tu.Message < len(t.Messages) && strings.Contains(t.Messages[tu.Message].Content, id[1]) {
			return tu.Message
		}
	}
	return -1
}

// quoted finds the first quoted value in a check's reason (the id a
// grounded rule names).
var quoted = regexp.MustCompile(`"([^"]+)"`)

// messageAt finds "message N" in a check's reason.
var messageAt = regexp.MustCompile(`\bmessage (\d+)\b`)

func (lb *labeler) finish(t *record.Trajectory) Labels {
	out := lb.out
	if lb.v != nil && lb.v.Passed && len(out.Turns) > 0 {
		last := &out.Turns[len(out.Turns)-1]
		for i, st := range out.Steps {
			if st.By == "" {
				out.Steps[i] = Step{Message: last.Message, By: ByOutcome}
				out.Progress++
			}
		}
		last.Progress = out.Progress
	}
	out.Coverage = 1
	if out.ChainLength > 0 {
		out.Coverage = float64(out.Progress) / float64(out.ChainLength)
	}
	if lb.v != nil {
		o := 0
		if lb.v.Passed {
			o = 1
		}
		out.Outcome = &o
	}
	switch {
	case t.Kind == record.KindRecovery && len(t.Corrections) > 0:
		c := t.Corrections[0]
		for _, tu := range out.Turns {
			if tu.Message < c {
				out.Pivotal = tu.Message
			} else if out.Correcting < 0 {
				out.Correcting = tu.Message
			}
		}
		// The mistake starts at the first turn that is not the oracle's;
		// the turned-down proposal is one at the latest (and the start
		// when where the dialogue departs is not known).
		out.MistakeFrom = out.Pivotal
		for _, tu := range out.Turns {
			if t.Departs > 0 && tu.Message >= t.Departs && tu.Message < out.MistakeFrom {
				out.MistakeFrom = tu.Message
				break
			}
		}
	case lb.v != nil && !lb.v.Passed:
		out.Pivotal = lb.pivotal(out.Turns, t)
	}
	return out
}

// unsaid is, for a required output never said that a tool result
// told the agent, the agent's first words after that result: where the
// figure was owed. -1 when every output was said or none came so.
func (lb *labeler) unsaid(turns []Turn) int {
	for j, o := range lb.bp.Outputs {
		if lb.said[j] {
			continue
		}
		h := lb.prov.holder(o.Value)
		if h < 0 {
			continue
		}
		for _, tu := range turns {
			if tu.Message > lb.prov.tools[h].msg && len(tu.Calls) == 0 {
				return tu.Message
			}
		}
	}
	return -1
}

// unrefused is, when a refusal owed was never made, the first turn that
// left it out since the last refusal: where the forbidden request was
// answered with something else. -1 when every refusal owed was made.
func (lb *labeler) unrefused(turns []Turn) int {
	if lb.refusals >= len(lb.refuseGoals) {
		return -1
	}
	at := -1
	for _, tu := range turns {
		switch {
		case tu.Class == ClassRefuse:
			at = -1
		case tu.Gold == ClassRefuse && at < 0:
			at = tu.Message
		}
	}
	return at
}

// pivotal is a failed dialogue's first wrong turn; when every turn was
// right the mistake is one left out, and the turn is the first after a
// required output's figure came that did not say it, else the one the
// failed check names, else the first that left out a refusal never made,
// else the first after the chain stopped advancing (where the next step
// was owed), else the agent's last.
func (lb *labeler) pivotal(turns []Turn, t *record.Trajectory) int {
	if at := lb.madeUp(turns, t); at >= 0 && (lb.wrong < 0 || at < lb.wrong) {
		return at
	}
	if lb.wrong >= 0 || len(turns) == 0 {
		return lb.wrong
	}
	if at := lb.unsaid(turns); at >= 0 {
		return at
	}
	if c := lb.v.Failed(); c != nil {
		if m := messageAt.FindStringSubmatch(c.Reason); m != nil {
			n, _ := strconv.Atoi(m[1])
			// A message rule names the call after which the message
			// prescribed was owed: the mistake is the turn after it. A
			// say or disclose rule names the write whose yes came without
			// the words: they were owed in the proposal the yes answered,
			// the last turn in words before it.
			after := strings.HasPrefix(c.Name, verify.RulePrefix+pack.RuleMessage+":")
			proposal := strings.HasPrefix(c.Name, verify.RulePrefix+pack.RuleSay+":") || strings.HasPrefix(c.Name, verify.RulePrefix+pack.RuleDisclose+":")
			at := -1
			for _, tu := range turns {
				if tu.Message <= n && (!proposal || len(tu.Calls) == 0 && tu.Message < n) || after && at <= n {
					at = tu.Message
				}
			}
			if at >= 0 {
				return at
			}
		}
	}
	if at := lb.unrefused(turns); at >= 0 {
		return at
	}
	// The chain stopped short: after its last step, the first turn that
	// left out an action the ground truth called for (the write the
	// customer said yes to, a refusal, a transfer), else the turn right
	// after it (which owed the figure it made known, or the next step).
	last, prev := -1, 0
	for j, tu := range turns {
		if tu.Progress > prev {
			last = j
		}
		prev = tu.Progress
	}
	owed := func(tu Turn) bool {
		return tu.Gold == ClassWrite || tu.Gold == ClassRefuse || tu.Gold == ClassTransfer
	}
	for _, tu := range turns[last+1:] {
		if tu.Class != tu.Gold && owed(tu) {
			return tu.Message
		}
	}
	if last+1 < len(turns) {
		return turns[last+1].Message
	}
	return turns[len(turns)-1].Message
}
