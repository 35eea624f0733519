package audit

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
	"github.com/synth-data/synth/tools"
)

// transferTool ends a dialogue with a hand-over to a human.
const transferTool = "transfer_to_human_agents"

// sftSeen is what the DPO check needs to know of a blueprint's SFT row,
// kept small: digests of its messages rather than the messages.
type sftSeen struct {
	file    string
	row     int
	digests []msgDigest
}

// firstSeen is where a first user message was found.
type firstSeen struct {
	split, file, id, text string
	row                   int
}

// checkSFTFiles re-verifies every SFT row on the worker pool.
func (s *state) checkSFTFiles(ctx context.Context) error {
	return s.fanOut(ctx, func(ctx context.Context, send func(func()) error) error {
		return scanRows(ctx, s, kindSFT, export.ScanSFT, send, func(e entry, i int, r export.SFTRow) { s.checkSFT(ctx, e, i, r) })
	})
}

// scanRows sends check of every row of the kind's files to the pool; a
// file missing or unreadable marks the kind unreadable, and a file read
// whole has its rows counted against its entry.
func scanRows[R any](ctx context.Context, s *state, kind string, scan func(string, func(R) error) error, send func(func()) error, check func(entry, int, R)) error {
	for _, e := range s.entries(kind) {
		if _, ok := s.sums[e.Path]; !ok {
			s.unreadable[kind] = true
			continue
		}
		row := 0
		err := scan(s.path(e.Path), func(r R) error {
			i := row
			row++
			return send(func() { check(e, i, r) })
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			s.unreadable[kind] = true
			s.defects.add(e.Path, NoRow, "", readCheck(err), "%s", s.relErr(err))
			continue
		}
		s.fileRows(e, row)
	}
	return nil
}

// fileRows compares the rows read from a Parquet file with its entry.
func (s *state) fileRows(e entry, n int) {
	if int64(n) != e.Rows {
		s.defects.add(e.Path, NoRow, "", "rows", "the file holds %d rows, the manifest says %d", n, e.Rows)
	}
}

// checkSFT checks one SFT row: its columns against its blueprint, its
// tool results against a replay of its calls, and the dialogue against
// every check of the verifier.
func (s *state) checkSFT(ctx context.Context, e entry, row int, r export.SFTRow) {
	defer s.guard(e.Path, row, r.ID)
	bad := func(check, format string, args ...any) { s.defects.add(e.Path, row, r.ID, check, format, args...) }

	dupID, prev := s.noteSFT(e, row, r)
	if dupID {
		bad("duplicate", "row id %q appears twice in sft/", r.ID)
	}
	if prev != nil {
		bad("duplicate", "blueprint %s already has an SFT row (%s row %d)", r.BlueprintID, prev.file, prev.row)
	}

	info := s.bps[r.BlueprintID]
	if info == nil {
		bad("blueprint", "blueprint %q is not in blueprints/", r.BlueprintID)
	} else {
		s.checkColumns(bad, e.split, r, info.bp)
	}
	if s.dom == nil {
		return
	}
	var bp *record.Blueprint
	if info != nil {
		bp = info.bp
	}
	if why := engine.CheckRowTools(s.dom.Tools, s.toolsMode(), r.Tools, r.Messages, bp); why != "" {
		bad("row", "%s (domain %s)", why, s.dom.Name)
	}
	if len(r.Messages) == 0 {
		bad("row", "no messages")
		return
	}
	if why := checkWeights(r.Engine, r.Kind, r.Messages, r.Labels); why != "" {
		bad("weight", "%s", why)
	}
	if r.Messages[0].Role != "system" || r.Messages[0].Content != s.dom.Policy {
		bad("row", "the first message is not the %s policy", s.dom.Name)
	}
	var faults []tools.Fault
	if info != nil {
		faults = tools.FaultsOf(info.bp.Failures)
	}
	hash, mismatch := s.replay(ctx, r.Messages, faults)
	if mismatch != "" {
		bad("tool_result", "%s", mismatch)
	}
	if info == nil {
		return
	}
	tr := &record.Trajectory{ID: r.ID, BlueprintID: r.BlueprintID, Domain: r.Domain, Engine: r.Engine, Behavior: r.Behavior, Kind: r.Kind,
		Messages: r.Messages, Ending: ending(r.Messages), StateHash: hash}
	v := s.ver.Verify(ctx, info.bp, tr)
	for _, c := range v.Checks {
		if !c.Passed {
			bad("verify/"+c.Name, "%s", c.Reason)
		}
	}
	if !v.Passed {
		return // the labels of a row that fails are moot
	}
	if r.Kind == record.KindRecovery && r.Labels != nil && !s.recovery(ctx, bad, info.bp, tr, r) {
		return
	}
	s.checkLabels(bad, info.bp, tr, v, r.Labels)
}

// noteSFT records a row's id, blueprint and first customer message under
// the workers' lock; it reports whether the id was seen before and the
// row its blueprint already had.
func (s *state) noteSFT(e entry, row int, r export.SFTRow) (dupID bool, prev *sftSeen) {
	// The hashing is done before taking the lock, which the workers share.
	seen := &sftSeen{file: e.Path, row: row}
	if s.digests {
		seen.digests = digestMessages(s.seed, r.Messages)
	}
	first, hasFirst := firstUser(r.Messages)
	key := normalize(first)
	s.mu.Lock()
	s.sftRows++
	s.sftBySplit[e.split]++
	dupID = s.sftIDs[r.ID]
	s.sftIDs[r.ID] = true
	prev = s.sft[r.BlueprintID]
	if prev == nil {
		s.sft[r.BlueprintID] = seen
	}
	if hasFirst {
		s.firsts[key] = append(s.firsts[key], firstSeen{split: e.split, file: e.Path, id: r.ID, text: first, row: row})
	}
	s.mu.Unlock()
	return dupID, prev
}

// recovery marks where a recovery row's mistake is caught and where it
// departs from the oracle's dialogue; false when its labels or the
// replay fail (reported).
func (s *state) recovery(ctx context.Context, bad func(check, format string, args ...any), bp *record.Blueprint, tr *record.Trajectory, r export.SFTRow) bool {
	// The customer message that caught the mistake is the one input a
	// row does not hold; its labels name it: the message after the
	// pivotal proposal.
	var at struct {
		Pivotal int `json:"pivotal"`
	}
	c := -1
	if json.Unmarshal(r.Labels, &at) == nil {
		c = at.Pivotal + 1
	}
	if c < 1 || c >= len(r.Messages) || r.Messages[c].Role != "user" || r.Messages[c-1].Role != "assistant" {
		bad("labels", "recovery row: pivotal %d is not an agent's turn the customer answers", c-1)
		return false
	}
	tr.Corrections = []int{c}
	// Where the mistake starts is where the row departs from the
	// oracle's dialogue, which the blueprint replays word for word.
	oracle, err := embedded.Simulate(ctx, s.dom, bp, s.maxTurns)
	if err != nil {
		bad("labels", "recovery row: replaying the oracle's dialogue: %v", err)
		return false
	}
	tr.Departs = record.Departure(oracle.Messages, r.Messages)
	return true
}

// checkLabels compares a dialogue's stored credit labels with the ones
// computed again from its blueprint, dialogue and verdict (releases
// before format 4 have none, and nothing is checked).
func (s *state) checkLabels(bad func(check, format string, args ...any), bp *record.Blueprint, tr *record.Trajectory, v record.Verdict, stored json.RawMessage) {
	if stored == nil {
		if s.doc.m.Format >= labelsFormat {
			bad("labels", "no labels (format %d has them)", s.doc.m.Format)
		}
		return
	}
	raw, err := json.Marshal(credit.LabelDomain(s.dom, bp, tr, &v))
	if err != nil {
		bad("labels", "%v", err)
		return
	}
	if !bytes.Equal(raw, stored) {
		bad("labels", "the labels differ from the ones the blueprint gives: %s", firstDifference(stored, raw))
	}
}

// checkWeights: exactly a recovery row's mistake turns (credit.Mistakes
// of its stored labels, whose agreement with the blueprint checkLabels
// checks) carry weight 0, and no other message carries a weight, so
// assistant-only loss never learns the mistake the customer caught. A
// row synth verify --keep kept from outside carries its input's
// weights, 0 or 1 on assistant messages as OpenAI's format allows.
func checkWeights(eng, kind string, msgs []record.Message, labels json.RawMessage) string {
	if eng == release.EngineOutside {
		for i, m := range msgs {
			if !record.WeightAllowed(m.Role, m.Weight) {
				return fmt.Sprintf("message %d (%s) has weight %d: a weight is 0 or 1, on assistant messages only", i, m.Role, *m.Weight)
			}
		}
		return ""
	}
	var want []int
	if kind == record.KindRecovery && labels != nil {
		var l credit.Labels
		if err := json.Unmarshal(labels, &l); err != nil {
			return fmt.Sprintf("labels: %v", err)
		}
		want = credit.Mistakes(l)
		if len(want) == 0 {
			return "a recovery row's labels name no mistake turn (mistake_from, correcting) to weigh 0"
		}
	}
	for i, m := range msgs {
		switch mistake := slices.Contains(want, i); {
		case mistake && m.Weight == nil:
			return fmt.Sprintf("message %d is the recovery's mistake (labels.mistake_from up to labels.correcting) but has no \"weight\": 0, so SFT trains on it", i)
		case mistake && *m.Weight != 0:
			return fmt.Sprintf("message %d is the recovery's mistake but has weight %d, want 0", i, *m.Weight)
		case !mistake && m.Weight != nil:
			return fmt.Sprintf("message %d has weight %d: only a recovery row's mistake turns carry a weight (0)", i, *m.Weight)
		}
	}
	return ""
}

// labelsFormat is the first format whose dialogues carry labels.
const labelsFormat = 4

// firstDifference shows where two JSON texts part.
func firstDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-40)
	clip := func(b []byte) string { return string(b[from:min(len(b), i+40)]) }
	return fmt.Sprintf("at byte %d, stored …%s… but recomputed …%s…", i, clip(got), clip(want))
}

// dpoTools is the release's --dpo-tools; releases before it kept the
// tool results.
func (s *state) dpoTools() string {
	mode, _ := s.doc.m.Config["dpo_tools"].(string)
	return mode
}

// dpoMode is the release's --dpo-mode (segment when unset).
func (s *state) dpoMode() string {
	if mode, _ := s.doc.m.Config["dpo_mode"].(string); mode != "" {
		return mode
	}
	return dpo.PairSegment
}

// toolsMode is the release's --tools; releases before it carry all.
func (s *state) toolsMode() string {
	mode, _ := s.doc.m.Config["tools"].(string)
	return mode
}

// checkColumns compares a row's columns with its blueprint's.
func (s *state) checkColumns(bad func(check, format string, args ...any), split string, r export.SFTRow, bp *record.Blueprint) {
	if split != bp.Split {
		bad("split", "row is in the %s split, its blueprint in %s", split, bp.Split)
	}
	if r.Domain != bp.Domain {
		bad("row", "domain %q, blueprint %q", r.Domain, bp.Domain)
	}
	if int(r.NWrites) != bp.NWrites || int(r.NReads) != bp.NReads {
		bad("row", "n_writes %d n_reads %d, blueprint %d and %d", r.NWrites, r.NReads, bp.NWrites, bp.NReads)
	}
	ev := make([]int32, len(bp.Evidence))
	for i, v := range bp.Evidence {
		ev[i] = int32(v)
	}
	if !slices.Equal(r.Evidence, ev) {
		bad("row", "evidence %v, blueprint %v", r.Evidence, bp.Evidence)
	}
	if r.Behavior != bp.Behavior {
		bad("row", "behavior %q, blueprint %q", r.Behavior, bp.Behavior)
	}
}

// ending infers how a stored dialogue ended: the rows do not record it,
// but a dialogue the agent handed over ended with the user's transfer
// token, and every other kept dialogue with the stop token.
func ending(msgs []record.Message) string {
	for _, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		for _, c := range m.ToolCalls {
			if c.Function.Name == transferTool {
				return record.EndTransfer
			}
		}
	}
	return record.EndStop
}

// replay re-runs every tool call of a dialogue in order, reads
// included, on a fresh copy of the database, and compares each recorded
// result with what the call gives now: the verifier replays only writes,
// so an edited read result would pass it. It returns the final state
// hash and the first mismatch.
func (s *state) replay(ctx context.Context, msgs []record.Message, faults []tools.Fault) (string, string) {
	st := s.dom.Base.NewState()
	st.Inject(faults)
	results := map[string]string{}
	mismatch := ""
	for i, m := range msgs {
		switch m.Role {
		case "assistant":
			for _, c := range m.ToolCalls {
				results[c.ID] = s.dom.Tools.Call(ctx, st, c.Function.Name, c.Function.Arguments).Output
			}
		case "tool":
			want, ok := results[m.ToolCallID]
			if ok && m.Content != want && mismatch == "" {
				mismatch = fmt.Sprintf("message %d: the %s result differs from re-running its call: recorded %s, re-run gives %s",
					i, m.Name, clip(m.Content), clip(want))
			}
		}
	}
	return st.Hash(), mismatch
}

// checkDPOFiles re-checks every DPO pair and every rejected dialogue on
// the worker pool. It runs after the SFT rows, whose digests it needs.
func (s *state) checkDPOFiles(ctx context.Context) error {
	err := s.fanOut(ctx, func(ctx context.Context, send func(func()) error) error {
		for _, r := range s.rejected {
			if err := send(func() { s.checkRejected(ctx, r) }); err != nil {
				return err
			}
		}
		return scanRows(ctx, s, kindDPO, export.ScanDPO, send, func(e entry, i int, r export.DPORow) { s.checkDPO(ctx, e, i, r) })
	})
	if err != nil {
		return err
	}
	if s.unreadable[kindDPO] || s.unreadable[kindDPOFailures] {
		return nil
	}
	for _, f := range s.failures {
		if !f.paired {
			s.defects.add(f.file, f.line, f.PairID, "dpo", "failure record of a pair that is not in dpo/")
		}
	}
	return nil
}

// checkDPO checks one pair: the chosen side is the verified SFT
// dialogue's continuation, and the rejected side is what the recorded
// flaw produces when re-simulated, and fails the recorded check.
func (s *state) checkDPO(ctx context.Context, e entry, row int, r export.DPORow) {
	defer s.guard(e.Path, row, r.ID)
	bad := func(check, format string, args ...any) { s.defects.add(e.Path, row, r.ID, check, format, args...) }

	s.mu.Lock()
	s.dpoRows++
	dupID := s.dpoIDs[r.ID]
	s.dpoIDs[r.ID] = true
	rec := s.failures[r.ID]
	if rec != nil {
		rec.paired = true
	}
	s.mu.Unlock()
	if dupID {
		bad("duplicate", "pair id %q appears twice in dpo/", r.ID)
	}
	if !s.checkDPOShape(bad, r) {
		return
	}
	info := s.bps[r.BlueprintID]
	if info == nil {
		bad("blueprint", "blueprint %q is not in blueprints/", r.BlueprintID)
		return
	}
	bp := info.bp
	if e.split != bp.Split {
		bad("split", "pair is in the %s split, its blueprint in %s", e.split, bp.Split)
	}
	if s.labels != nil && len(dpo.Expected(r.Failure)) > 0 {
		// The label is what the rows teach: the rejected side itself must
		// make the mistake, or its proposal's words show it, whatever its
		// dialogue did after the cut (a caught mistake included).
		if ok, why := s.labels.Shows(ctx, bp, r.Failure, r.Prompt, r.Chosen, r.Rejected); !ok {
			bad("dpo/label", "the rejected side does not show its label %s: %s", r.Failure, why)
		}
	}
	if r.Domain != bp.Domain {
		bad("dpo", "domain %q, blueprint %q", r.Domain, bp.Domain)
	}

	// s.sft is complete and no longer written: the SFT pass is over. An
	// unreadable SFT file is reported already; its pairs would only
	// repeat it.
	if good := s.sft[r.BlueprintID]; good == nil && !s.sftIncomplete {
		bad("dpo", "blueprint %s has no SFT row, so the chosen side is not a verified dialogue", r.BlueprintID)
	} else if good != nil {
		if i, ok := isPrefix(s.seed, good.digests, r.Prompt, r.Chosen); !ok {
			bad("dpo", "prompt+chosen is not the verified dialogue (%s row %d): they part at message %d", good.file, good.row, i)
		}
	}
	if rec == nil {
		bad("dpo", "no failure record for the pair in rejected/dpo_failures-*")
		return
	}
	if s.checkDPORecord(bad, r, rec, bp) && s.dom != nil {
		s.checkDPODialogue(ctx, bad, r, rec, bp)
	}
}

// checkDPOShape checks a pair's rows by themselves: where its sides
// start and end, its divergence turn and its tools. It reports whether
// the pair is whole enough to check further.
func (s *state) checkDPOShape(bad func(check, format string, args ...any), r export.DPORow) bool {
	switch {
	case len(r.Prompt) == 0 || len(r.Chosen) == 0 || len(r.Rejected) == 0:
		bad("dpo", "empty prompt, chosen or rejected (%d, %d, %d messages)", len(r.Prompt), len(r.Chosen), len(r.Rejected))
		return false
	case r.Prompt[len(r.Prompt)-1].Role != "user" && r.Prompt[len(r.Prompt)-1].Role != "tool":
		bad("dpo", "the prompt ends with a %s message, not a user or tool one", r.Prompt[len(r.Prompt)-1].Role)
	case r.Chosen[0].Role != "assistant" || r.Rejected[0].Role != "assistant":
		bad("dpo", "chosen and rejected must start with the agent's message (%s, %s)", r.Chosen[0].Role, r.Rejected[0].Role)
	}
	if turns := countRole(r.Prompt, "user"); int(r.DivergenceTurn) != turns {
		bad("dpo", "divergence_turn %d, but the prompt holds %d user turns", r.DivergenceTurn, turns)
	}
	if s.dom != nil {
		var bp *record.Blueprint
		if info := s.bps[r.BlueprintID]; info != nil {
			bp = info.bp
		}
		all := slices.Concat(r.Prompt, r.Chosen, r.Rejected)
		if why := engine.CheckRowTools(s.dom.Tools, s.toolsMode(), r.Tools, all, bp); why != "" {
			bad("dpo", "%s (domain %s)", why, s.dom.Name)
		}
	}
	for _, side := range []struct {
		name string
		msgs []record.Message
	}{{"chosen", r.Chosen}, {"rejected", r.Rejected}} {
		if i := slices.IndexFunc(side.msgs, func(m record.Message) bool { return m.Role == "tool" }); i >= 0 && s.dpoTools() == dpo.ToolsCut {
			bad("dpo", "dpo_tools is cut, but %s message %d is a tool result", side.name, i)
		}
		// A side that runs past the next customer turn breaks the
		// prompt's prefix under templates that render reasoning only
		// after the last user message; only whole sessions span turns.
		if i := slices.IndexFunc(side.msgs, func(m record.Message) bool { return m.Role == "user" }); i >= 0 && s.dpoMode() != dpo.PairSession {
			bad("dpo", "%s message %d is a customer turn: a %s pair's sides end before the next one", side.name, i, s.dpoMode())
		}
	}
	return true
}

// checkDPORecord holds a pair to its failure record; it reports whether
// the record is sound enough to re-simulate.
func (s *state) checkDPORecord(bad func(check, format string, args ...any), r export.DPORow, rec *failureRecord, bp *record.Blueprint) bool {
	if rec.BlueprintID != r.BlueprintID || rec.Failure != r.Failure || rec.Split != bp.Split {
		bad("dpo", "failure record (%s line %d) says blueprint %s, failure %s, split %s", rec.file, rec.line+1, rec.BlueprintID, rec.Failure, rec.Split)
	}
	expected := dpo.Expected(r.Failure)
	switch {
	case len(expected) == 0:
		bad("dpo", "unknown failure type %q", r.Failure)
		return false
	case !dpo.Explains(r.Failure, rec.Check):
		bad("dpo", "failure %s was recorded failing %s; it must fail one of %s", r.Failure, rec.Check, strings.Join(expected, ", "))
	case rec.FlawGoal < 0 || rec.FlawGoal >= len(bp.Goals):
		bad("dpo", "flaw_goal %d, but the blueprint has %d goals", rec.FlawGoal, len(bp.Goals))
		return false
	case rec.Evidence != 0:
		// Releases before 0.12 paired some mistakes on the decision
		// they followed from; their rows are held to the label above.
		bad("dpo", "evidence %d: a pair's rows must show its label themselves", rec.Evidence)
	}
	return true
}

// checkDPODialogue holds a pair to the failed dialogue it was cut from:
// recorded (the LLM engine's), or re-simulated from the flaw.
func (s *state) checkDPODialogue(ctx context.Context, bad func(check, format string, args ...any), r export.DPORow, rec *failureRecord, bp *record.Blueprint) {
	if rec.Trajectory != nil {
		// An LLM engine's pair: its rejected side is a recorded dialogue
		// (a model's, which nothing re-simulates): it must be that
		// dialogue's continuation and fail the recorded check. A model's
		// trial may part from the verified dialogue before its mistake,
		// so its rows must show the label themselves.
		if i, ok := isPrefix(s.seed, digestMessages(s.seed, rec.Trajectory.Messages), r.Prompt, r.Rejected); !ok {
			bad("dpo", "prompt+rejected is not the recorded failed dialogue: they part at message %d", i)
		}
		switch f := s.ver.Verify(ctx, bp, rec.Trajectory).Failed(); {
		case f == nil:
			bad("dpo", "the recorded failed dialogue passes verification; a rejected side must fail")
		case f.Name != rec.Check:
			bad("dpo", "the recorded failed dialogue fails %s (%s), the record says %s", f.Name, f.Reason, rec.Check)
		}
		return
	}
	flawed, fired, err := embedded.SimulateFlawed(ctx, s.dom, bp, s.maxTurns, agent.Flaw{Kind: r.Failure, Goal: rec.FlawGoal})
	switch {
	case err != nil:
		bad("dpo", "re-simulating the flawed agent: %v", err)
		return
	case !fired:
		bad("dpo", "the %s flaw never fires when the dialogue is re-simulated", r.Failure)
		return
	}
	if i, ok := isPrefix(s.seed, digestMessages(s.seed, flawed.Messages), r.Prompt, r.Rejected); !ok {
		bad("dpo", "prompt+rejected is not the re-simulated %s dialogue: they part at message %d", r.Failure, i)
	}
	if rec.Check == dpo.CheckCaught {
		// A mistake the customer caught: the customer turns the flawed
		// proposal down after the rejected side, not before it.
		end := len(r.Prompt) + len(r.Rejected)
		if !slices.ContainsFunc(flawed.Corrections, func(c int) bool { return c >= end }) {
			bad("dpo", "the customer never turns the re-simulated %s dialogue down after message %d", r.Failure, end)
		}
		return
	}
	switch f := s.ver.Verify(ctx, bp, flawed).Failed(); {
	case f == nil:
		bad("dpo", "the re-simulated %s dialogue passes verification; a rejected side must fail", r.Failure)
	case f.Name != rec.Check:
		bad("dpo", "the re-simulated %s dialogue fails %s (%s), the record says %s", r.Failure, f.Name, f.Reason, rec.Check)
	}
}

// checkRejected re-verifies a rejected dialogue: it must fail, and for
// the recorded reason.
func (s *state) checkRejected(ctx context.Context, r *rejectedRecord) {
	defer s.guard(r.file, r.line, r.BlueprintID)
	s.mu.Lock()
	s.rejectedRows++
	s.mu.Unlock()
	bad := func(check, format string, args ...any) {
		s.defects.add(r.file, r.line, r.BlueprintID, check, format, args...)
	}
	info := s.bps[r.BlueprintID]
	if info == nil {
		bad("blueprint", "blueprint %q is not in blueprints/", r.BlueprintID)
		return
	}
	if r.Split != info.bp.Split {
		bad("split", "record says split %s, its blueprint %s", r.Split, info.bp.Split)
	}
	if r.Trajectory == nil || len(r.Trajectory.Messages) == 0 {
		bad("rejected", "no dialogue")
		return
	}
	if s.ver == nil {
		return
	}
	v := s.ver.Verify(ctx, info.bp, r.Trajectory)
	switch f := v.Failed(); {
	case f == nil:
		bad("rejected", "the dialogue passes verification; it belongs in sft/, not rejected/")
	case f.Name != r.Check:
		bad("rejected", "the dialogue fails %s (%s), the record says %s", f.Name, f.Reason, r.Check)
	default:
		s.checkLabels(bad, info.bp, r.Trajectory, v, r.Labels)
	}
}

func countRole(msgs []record.Message, role string) int {
	n := 0
	for _, m := range msgs {
		if m.Role == role {
			n++
		}
	}
	return n
}

func firstUser(msgs []record.Message) (string, bool) {
	for _, m := range msgs {
		if m.Role == "user" {
			return m.Content, true
		}
	}
	return "", false
}

// msgDigest identifies a message's content within one validation: a
// seeded 64-bit hash, fast enough to take of every message, keyed so
// that no input is crafted to collide.
type msgDigest uint64

// digestMessages hashes each message, every field length-prefixed so
// that no two different messages hash the same input.
func digestMessages(seed maphash.Seed, msgs []record.Message) []msgDigest {
	out := make([]msgDigest, len(msgs))
	var h maphash.Hash
	h.SetSeed(seed)
	for i, m := range msgs {
		h.Reset()
		field(&h, m.Role)
		field(&h, m.Content)
		field(&h, m.ReasoningContent)
		field(&h, m.ToolCallID)
		field(&h, m.Name)
		for _, c := range m.ToolCalls {
			field(&h, c.ID)
			field(&h, c.Type)
			field(&h, c.Function.Name)
			field(&h, c.Function.Arguments)
		}
		out[i] = msgDigest(h.Sum64())
	}
	return out
}

func field(h *maphash.Hash, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.WriteString(s)
}

// isPrefix reports whether the concatenated parts are a prefix of the
// dialogue whose digests are given; if not, it returns the index of the
// first message that differs.
func isPrefix(seed maphash.Seed, whole []msgDigest, parts ...[]record.Message) (int, bool) {
	var msgs []record.Message
	for _, p := range parts {
		msgs = append(msgs, p...)
	}
	got := digestMessages(seed, msgs)
	for i, d := range got {
		if i >= len(whole) || d != whole[i] {
			return i, false
		}
	}
	return 0, true
}

// clip shortens text for a defect line.
func clip(s string) string {
	const max = 80
	r := []rune(s)
	if len(r) > max {
		return fmt.Sprintf("%q…", string(r[:max]))
	}
	return fmt.Sprintf("%q", s)
}
