package verify

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/tools"
)

// Check names, in the order they run; the manifest reports a pass rate for each.
const (
	CheckRecordSchema = "record_schema"
	CheckToolSchema   = "tool_schema"
	CheckToolCallIDs  = "tool_call_ids"
	CheckTurns        = "turns"
	CheckAuth         = "authentication"
	CheckConfirmation = "confirmation"
	CheckState        = "state"
	CheckOutputs      = "outputs"
	CheckEnding       = "ending"
	// CheckToolResults replays an outside dialogue's calls and compares
	// each result with the recorded one (Outside only: synth's own
	// dialogues record what they executed).
	CheckToolResults = "tool_results"
)

// Checks lists every check name.
func Checks() []string {
	return []string{CheckRecordSchema, CheckToolSchema, CheckToolCallIDs, CheckTurns, CheckAuth, CheckConfirmation, CheckState, CheckOutputs, CheckEnding}
}

// Domain is what verification needs to know about a domain.
type Domain struct {
	Tools *tools.Toolkit
	Base  *tools.Base
	// AuthTools identify the user; calls to them start an authenticated session.
	AuthTools []string
	// OpenTools may be called before authentication (catalogue lookups).
	OpenTools []string
	// Owner returns the user id owning an entity named in a call's
	// arguments ("" when the arguments name no user-owned entity).
	Owner func(st *tools.State, args map[string]any) string
	// UserOf extracts the user's key from an AuthTools result; nil means
	// the result is the key itself (quotes and spaces trimmed). Packs
	// whose identify tool returns the user's record need it.
	UserOf func(output string) string
	// StatedKey says a user is identified by stating their key (the
	// pack identifies by key alone): a call on a user's data is then
	// authenticated once the user has said that key, before any identify
	// call.
	StatedKey bool
	// Identifying are the arguments a write's proposal must name before
	// the user's yes (ids, the first address line): a yes to a proposal
	// that does not say what will change is no consent.
	Identifying []string
	// Model is the compiled domain whose policy rules (Model.Rules) are
	// checked, one check each named RulePrefix+NAME; nil checks none.
	Model *model.Model
}

// ForDomain is the verifier of a loaded domain: authentication,
// ownership and consent rules come from its compiled model, the same
// model the generator, the customer and the agent work from.
func ForDomain(d *domain.Domain, sch *schemas.Set) *Verifier {
	m := d.Model
	return New(Domain{
		Tools:       d.Tools,
		Base:        d.Base,
		AuthTools:   m.AuthTools(),
		OpenTools:   m.OpenTools(),
		Owner:       m.Owner,
		UserOf:      m.UserKeyOf,
		StatedKey:   m.KeyIdentifies(),
		Identifying: m.Identifying(),
		Model:       m,
	}, sch)
}

// Verifier checks dialogues of one domain. Safe for concurrent use.
type Verifier struct {
	d       Domain
	schemas *schemas.Set
	golds   golds
}

// New creates a verifier.
func New(d Domain, s *schemas.Set) *Verifier { return &Verifier{d: d, schemas: s} }

// golds remembers the ground truth's replay per blueprint: each attempt
// at one blueprint (the oracle's, every flawed agent's, the label
// checks') is verified against the same ground truth, which need not run
// again. An entry holds its blueprint, so its address is not reused
// while the entry lives.
type golds struct {
	mu    sync.Mutex
	m     map[goldKey]gold
	order []goldKey
}

type goldKey struct {
	bp     *record.Blueprint
	strict bool
}

// gold is a ground truth's final state hash, or why it failed to replay.
type gold struct{ hash, failed string }

const maxGolds = 1024

func (g *golds) get(k goldKey) (gold, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, ok := g.m[k]
	return r, ok
}

func (g *golds) put(k goldKey, r gold) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[goldKey]gold{}
	}
	if _, ok := g.m[k]; ok {
		return
	}
	if len(g.order) >= maxGolds {
		delete(g.m, g.order[0])
		g.order = g.order[1:]
	}
	g.m[k] = r
	g.order = append(g.order, k)
}

var callID = regexp.MustCompile(`^[A-Za-z0-9]{9}$`)

// Verify runs every check; the verdict passes only if all pass.
func (v *Verifier) Verify(ctx context.Context, bp *record.Blueprint, tr *record.Trajectory) record.Verdict {
	calls := v.parseCalls(tr)
	rp := v.replay(ctx, bp, tr)
	checks := []record.Check{
		v.recordSchema(bp, tr),
		toolSchema(tr, calls),
		toolCallIDs(tr),
		turns(tr),
		v.auth(tr, calls),
		v.confirmation(tr),
		v.state(ctx, bp, tr, rp, true),
		outputs(bp, tr),
		ending(bp, tr),
	}
	return verdictOf(append(checks, v.rules(bp, tr, rp)...))
}

func verdictOf(checks []record.Check) record.Verdict {
	verdict := record.Verdict{Passed: true, Checks: checks}
	for _, c := range checks {
		verdict.Passed = verdict.Passed && c.Passed
	}
	return verdict
}

func pass(name string) record.Check { return record.Check{Name: name, Passed: true} }

func fail(name, format string, args ...any) record.Check {
	return record.Check{Name: name, Reason: fmt.Sprintf(format, args...)}
}

func (v *Verifier) recordSchema(bp *record.Blueprint, tr *record.Trajectory) record.Check {
	if conforms(bp, tr) {
		return pass(CheckRecordSchema)
	}
	bv, err := blueprintValue(bp)
	if err != nil {
		return fail(CheckRecordSchema, "blueprint arguments: %v", err)
	}
	if err := v.schemas.ValidateValue(schemas.Blueprint, bv); err != nil {
		return fail(CheckRecordSchema, "%v", err)
	}
	if err := v.schemas.ValidateValue(schemas.Trajectory, trajectoryValue(tr)); err != nil {
		return fail(CheckRecordSchema, "%v", err)
	}
	return pass(CheckRecordSchema)
}

// parsed is one tool call's arguments, decoded and validated once for
// every check that needs them.
type parsed struct {
	args map[string]any
	err  error
}

// parseCalls decodes every tool call, by message and position.
func (v *Verifier) parseCalls(tr *record.Trajectory) [][]parsed {
	out := make([][]parsed, len(tr.Messages))
	for i, m := range tr.Messages {
		for _, c := range m.ToolCalls {
			_, args, err := v.d.Tools.ParseArgs(c.Function.Name, c.Function.Arguments)
			out[i] = append(out[i], parsed{args, err})
		}
	}
	return out
}

func toolSchema(tr *record.Trajectory, calls [][]parsed) record.Check {
	for i := range tr.Messages {
		for _, p := range calls[i] {
			if p.err != nil {
				return fail(CheckToolSchema, "message %d: %v", i, p.err)
			}
		}
	}
	return pass(CheckToolSchema)
}

func toolCallIDs(tr *record.Trajectory) record.Check {
	open := map[string]string{}
	seen := map[string]bool{}
	for i, m := range tr.Messages {
		for _, c := range m.ToolCalls {
			if !callID.MatchString(c.ID) {
				return fail(CheckToolCallIDs, "message %d: tool call id %q is not 9 alphanumerics", i, c.ID)
			}
			if seen[c.ID] {
				return fail(CheckToolCallIDs, "message %d: tool call id %q used twice", i, c.ID)
			}
			seen[c.ID] = true
			open[c.ID] = c.Function.Name
		}
		if m.Role == "tool" {
			name, ok := open[m.ToolCallID]
			if !ok {
				return fail(CheckToolCallIDs, "message %d: tool result for unknown or already answered call %q", i, m.ToolCallID)
			}
			if name != m.Name {
				return fail(CheckToolCallIDs, "message %d: tool result names %q but call %q was to %q", i, m.Name, m.ToolCallID, name)
			}
			delete(open, m.ToolCallID)
		}
		if m.Role == "user" && len(open) > 0 {
			return fail(CheckToolCallIDs, "message %d: user spoke while %d tool calls were unanswered", i, len(open))
		}
	}
	if len(open) > 0 {
		return fail(CheckToolCallIDs, "%d tool calls never answered", len(open))
	}
	return pass(CheckToolCallIDs)
}

func turns(tr *record.Trajectory) record.Check {
	if len(tr.Messages) == 0 || tr.Messages[0].Role != "system" {
		return fail(CheckTurns, "the dialogue must open with the system policy")
	}
	for i, m := range tr.Messages[1:] {
		switch m.Role {
		case "user":
			if strings.TrimSpace(m.Content) == "" {
				return fail(CheckTurns, "message %d: empty user turn", i+1)
			}
			if strings.Contains(m.Content, "###") {
				return fail(CheckTurns, "message %d: a stop token leaked into the user's text", i+1)
			}
		case "assistant":
			if strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0 {
				return fail(CheckTurns, "message %d: empty assistant turn", i+1)
			}
			if m.Content != "" && len(m.ToolCalls) > 0 {
				return fail(CheckTurns, "message %d: text mixed with tool calls", i+1)
			}
		case "tool":
		default:
			return fail(CheckTurns, "message %d: unexpected role %q", i+1, m.Role)
		}
	}
	return pass(CheckTurns)
}

// auth checks that no account data is touched before the user is
// identified, and that every account touched is that user's.
func (v *Verifier) auth(tr *record.Trajectory, calls [][]parsed) record.Check {
	user := ""
	st := v.d.Base.NewState()
	results := pairResults(tr)
	for i, m := range tr.Messages {
		for k, c := range m.ToolCalls {
			name := c.Function.Name
			if slices.Contains(v.d.AuthTools, name) {
				if out, ok := results[[2]int{i, k}]; ok && !strings.HasPrefix(out, "Error") {
					if v.d.UserOf != nil {
						user = v.d.UserOf(out)
					} else {
						user = strings.Trim(out, "\" ")
					}
				}
				continue
			}
			if slices.Contains(v.d.OpenTools, name) {
				continue
			}
			p := calls[i][k]
			if user == "" && v.d.StatedKey && p.err == nil && v.d.Owner != nil {
				if owner := v.d.Owner(st, p.args); owner != "" && userSaid(tr.Messages[:i], owner) {
					user = owner
				}
			}
			if user == "" {
				return fail(CheckAuth, "message %d: %s called before the user was authenticated", i, name)
			}
			if p.err != nil || v.d.Owner == nil {
				continue
			}
			if owner := v.d.Owner(st, p.args); owner != "" && owner != user {
				return fail(CheckAuth, "message %d: %s acts on %s's data for authenticated user %s", i, name, owner, user)
			}
		}
	}
	return pass(CheckAuth)
}

// userSaid reports whether a user message said a key.
func userSaid(msgs []record.Message, key string) bool {
	return slices.ContainsFunc(msgs, func(m record.Message) bool { return m.Role == "user" && strings.Contains(m.Content, key) })
}

// pairResults finds each call's result, by message and call index: a
// tool message answers the earliest unanswered call with its id, so a
// dialogue that reuses an id (which tool_call_ids fails) still pairs
// each call with its own result.
func pairResults(tr *record.Trajectory) map[[2]int]string {
	out := map[[2]int]string{}
	open := map[string][][2]int{}
	for i, m := range tr.Messages {
		for k, c := range m.ToolCalls {
			open[c.ID] = append(open[c.ID], [2]int{i, k})
		}
		if m.Role == "tool" {
			if q := open[m.ToolCallID]; len(q) > 0 {
				out[q[0]] = m.Content
				open[m.ToolCallID] = q[1:]
			}
		}
	}
	return out
}

var affirm = regexp.MustCompile(`(?i)\b(yes|yeah|yep|sure|correct|confirm(ed)?|go ahead|proceed|please (kindly )?do|do it|right|all good|ok(ay)?)\b`)
var negate = regexp.MustCompile(`(?i)\b(no|not|don't|instead|actually|wait|hold on|changed my mind)\b`)

// Affirmative reports whether a user message is an explicit yes.
func Affirmative(s string) bool { return affirm.MatchString(s) && !negate.MatchString(s) }

// confirmation checks that each write was proposed with its details and
// explicitly accepted by the user's last message, one write at a time.
func (v *Verifier) confirmation(tr *record.Trajectory) record.Check {
	lastUser, lastProposal := -1, -1
	consumed := map[int]bool{}
	results := pairResults(tr)
	// retriable is the last write when the service failed it for a
	// passing reason the domain says to retry (a timeout): the same call
	// again runs on the same yes.
	var retriable *record.FunctionCall
	for i, m := range tr.Messages {
		switch m.Role {
		case "user":
			lastUser = i
		case "assistant":
			writes := 0
			for k, c := range m.ToolCalls {
				if v.d.Tools.Kind(c.Function.Name) != record.KindWrite {
					continue
				}
				writes++
				if lastUser < 0 || !Affirmative(tr.Messages[lastUser].Content) {
					return fail(CheckConfirmation, "message %d: %s without an explicit yes from the user", i, c.Function.Name)
				}
				retry := retriable != nil && *retriable == c.Function
				retriable = nil
				if f := v.failure(c.Function.Name, results[[2]int{i, k}]); f != nil && f.Recovery == pack.RecoverRetry {
					retriable = &c.Function
				}
				if consumed[lastUser] && !retry {
					return fail(CheckConfirmation, "message %d: one yes used for two writes", i)
				}
				consumed[lastUser] = true
				if lastProposal < 0 || lastProposal > lastUser || !mentions(tr.Messages[lastProposal].Content, c.Function.Arguments, v.d.Identifying) {
					return fail(CheckConfirmation, "message %d: %s was not proposed with its details before the yes", i, c.Function.Name)
				}
			}
			if writes > 1 {
				return fail(CheckConfirmation, "message %d: %d writes in one turn; the policy allows one at a time", i, writes)
			}
			if m.Content != "" {
				lastProposal = i
			}
		}
	}
	return pass(CheckConfirmation)
}

// failure is the domain's declared failure a write's result is, or nil.
func (v *Verifier) failure(tool, output string) *pack.Failure {
	if v.d.Model == nil {
		return nil
	}
	return pack.FailureFor(v.d.Model.Failures, tool, output)
}

// mentions reports whether a proposal names the write's identifying
// arguments.
func mentions(text, rawArgs string, identifying []string) bool {
	args, err := tools.DecodeObject(rawArgs)
	if err != nil {
		return false
	}
	for _, k := range identifying {
		v, ok := args[k]
		if !ok {
			continue
		}
		for _, x := range elementsOf(v) {
			if s := tools.Text(x); s != "" && !strings.Contains(text, s) {
				return false
			}
		}
	}
	return true
}

// state replays the dialogue's writes and the ground truth on fresh
// copies and compares the canonical hashes (tau2's reward). A strict
// ground truth must replay without errors (synth executed it); outside
// ground truth may hold a write that fails and so changes nothing, as
// τ²'s evaluation allows.
func (v *Verifier) state(ctx context.Context, bp *record.Blueprint, tr *record.Trajectory, rp *replayed, strict bool) record.Check {
	got := rp.hash
	g := v.gold(ctx, bp, strict)
	if g.failed != "" {
		return fail(CheckState, "%s", g.failed)
	}
	want := g.hash
	if want != bp.StateHash {
		return fail(CheckState, "ground truth replays to %s, blueprint recorded %s", short(want), short(bp.StateHash))
	}
	if got != want {
		return fail(CheckState, "final state %s differs from the ground truth's %s", short(got), short(want))
	}
	if tr.StateHash != "" && tr.StateHash != got {
		return fail(CheckState, "dialogue ended in state %s but its writes replay to %s", short(tr.StateHash), short(got))
	}
	return pass(CheckState)
}

// gold replays a blueprint's ground truth once per verifier.
func (v *Verifier) gold(ctx context.Context, bp *record.Blueprint, strict bool) gold {
	k := goldKey{bp, strict}
	if g, ok := v.golds.get(k); ok {
		return g
	}
	st := v.d.Base.NewState()
	var g gold
	for i, a := range bp.Actions {
		if a.Kind != record.KindWrite {
			continue
		}
		if res := v.d.Tools.Exec(ctx, st, a.Tool, string(a.Arguments)); res.Err && strict {
			g.failed = fmt.Sprintf("ground-truth action %d (%s) fails on replay: %s", i, a.Tool, res.Output)
			break
		}
	}
	if g.failed == "" {
		g.hash = st.Hash()
	}
	if ctx.Err() == nil {
		// A cancelled run's replay may have failed for that alone.
		v.golds.put(k, g)
	}
	return g
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// outputForm drops what the outputs check ignores in a figure, and reads
// an underscore as the space a person writes for it (one_way is said
// "one way"). A replacer builds its tables on first use, so it is made
// once: built per message it was a tenth of all a run allocated.
var outputForm = strings.NewReplacer(",", "", "-$", "-", "_", " ")

// SaysOutput reports whether an agent's message states a required
// output's value as the outputs check reads it; the credit labels mark
// the message that first does so as a step of the chain.
func SaysOutput(text, value string) bool {
	return saysNormalised(outputForm.Replace(strings.ToLower(text)), outputForm.Replace(strings.ToLower(value)))
}

// saysNormalised is SaysOutput on text and value in outputForm. A
// negative amount is money coming back to the customer, which the agent
// says as such ("you'll get $325 back", "a refund of $325"), never as
// "-$325": its magnitude in a message that says it is a refund says it.
func saysNormalised(text, want string) bool {
	if strings.Contains(text, want) {
		return true
	}
	mag, neg := strings.CutPrefix(want, "-")
	return neg && mag != "" && strings.Contains(text, mag) && SaysRefund(text)
}

// outputs checks that the agent said every required output, compared as
// τ-bench does: case and commas aside (23,553 says 23553); underscores as
// spaces; and a sign
// before a currency sign, which τ-bench's agents never write, as before
// the number (-$272 says -272).
func outputs(bp *record.Blueprint, tr *record.Trajectory) record.Check {
	if len(bp.Outputs) == 0 {
		return pass(CheckOutputs)
	}
	norm := func(s string) string { return outputForm.Replace(strings.ToLower(s)) }
	// Each of the agent's messages is normalised once, whatever the
	// number of outputs.
	var agent []string
	for _, m := range tr.Messages {
		if m.Role == "assistant" {
			agent = append(agent, norm(m.Content))
		}
	}
	for _, o := range bp.Outputs {
		want := norm(o.Value)
		said := slices.ContainsFunc(agent, func(text string) bool { return saysNormalised(text, want) })
		if !said {
			return fail(CheckOutputs, "the agent never told the user the %s (%s)", o.Name, o.Value)
		}
	}
	return pass(CheckOutputs)
}

func ending(bp *record.Blueprint, tr *record.Trajectory) record.Check {
	transfer := bp.NeedsTransfer()
	if len(tr.Messages) == 0 {
		return fail(CheckEnding, "the dialogue is empty")
	}
	last := tr.Messages[len(tr.Messages)-1]
	switch {
	case last.Role != "assistant" || last.Content == "":
		return fail(CheckEnding, "the dialogue must end with the agent's closing words")
	case transfer && tr.Ending != record.EndTransfer:
		return fail(CheckEnding, "the task needs a transfer but the dialogue ended with %q", tr.Ending)
	case !transfer && tr.Ending != record.EndStop:
		return fail(CheckEnding, "the dialogue ended with %q instead of the user's ###STOP###", tr.Ending)
	}
	return pass(CheckEnding)
}
