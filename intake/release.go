package intake

import (
	"context"
	"strings"

	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// ForRelease makes the records of a dialogue that passed Outside into
// those of a synth release, which synth validate re-verifies as it does
// generated rows: the system message is the domain's policy (a row's
// contract), each tool result is the text its call gives on replay (they
// were equal as JSON values; a release holds the exact text, a declared
// tool failure's included), and the
// blueprint carries what a release's blueprints carry. Gold writes that
// fail on a fresh state change nothing and are left out: a release's
// ground truth replays without errors. id names both records; index and
// seed place them in the release. Every dialogue goes to the train split:
// outside data has no split of synth's to follow.
func ForRelease(ctx context.Context, bp *record.Blueprint, tr *record.Trajectory, dom Domain, id string, index int, seed uint64) (*record.Blueprint, *record.Trajectory) {
	out := *tr
	out.ID, out.BlueprintID = id, id
	out.Messages = make([]record.Message, len(tr.Messages))
	copy(out.Messages, tr.Messages)
	if len(out.Messages) > 0 && out.Messages[0].Role == "system" {
		out.Messages[0].Content = dom.Policy
	}
	st := dom.Base.NewState()
	// A failure the task declared fails its call on replay too, as it
	// did in the dialogue: the failed write changed nothing.
	st.Inject(tools.FaultsOf(bp.Failures))
	results := map[string]string{}
	for i, m := range out.Messages {
		for _, c := range m.ToolCalls {
			results[c.ID] = dom.Tools.Call(ctx, st, c.Function.Name, c.Function.Arguments).Output
		}
		if m.Role == "tool" {
			if r, ok := results[m.ToolCallID]; ok {
				out.Messages[i].Content = r
			}
		}
	}
	out.StateHash = st.Hash()

	b := *bp
	b.ID, b.Index, b.Seed, b.Split, b.Domain = id, index, seed, "train", dom.Name
	b.Persona = record.Persona{Name: "customer", Known: map[string]string{}}
	b.Reason = "a dialogue made outside synth, kept by synth verify"
	b.Instruction = firstUserText(out.Messages)
	b.Actions, b.NWrites, b.NReads = nil, 0, 0
	b.Goals = nil
	for _, g := range bp.Goals {
		if g.Target.Collection == "" {
			g.Target = record.Selector{Collection: "dialogue", Label: g.Intent}
		}
		b.Goals = append(b.Goals, g)
	}
	gold := dom.Base.NewState()
	for _, a := range bp.Actions {
		if a.Kind == record.KindWrite {
			if dom.Tools.Exec(ctx, gold, a.Tool, string(a.Arguments)).Err {
				continue
			}
			b.NWrites++
			b.Goals = append(b.Goals, record.Goal{Intent: a.Tool, Kind: record.GoalWrite, Target: record.Selector{Collection: a.Tool, Label: a.Tool}})
		}
		if a.Kind == record.KindRead {
			b.NReads++
		}
		b.Actions = append(b.Actions, a)
	}
	b.StateHash = gold.Hash()
	// Which reads each write needed is not known of outside data.
	b.Evidence = []int{}
	if len(b.Goals) == 0 {
		b.Goals = []record.Goal{{Intent: "answer", Kind: record.GoalInform, Target: record.Selector{Collection: "dialogue", Label: "the user's question"}}}
	}
	return &b, &out
}

// firstUserText is what the user first asked: the task as the dialogue
// states it, which is all the instruction outside data has.
func firstUserText(msgs []record.Message) string {
	for _, m := range msgs {
		if m.Role == "user" && strings.TrimSpace(m.Content) != "" {
			return m.Content
		}
	}
	return "(the dialogue has no user text)"
}
