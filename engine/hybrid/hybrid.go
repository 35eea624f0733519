package hybrid

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/sync/errgroup"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/engine/llm"
	client "github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

// Name is the engine's name, as --engine takes it and trajectories record.
const Name = "hybrid"

// Engine is the hybrid engine.
type Engine struct {
	llm.Base
	opts llm.Options
	d    *domain.Domain
	ver  *verify.Verifier
}

// New makes the hybrid engine of a domain. It makes no DPO pairs: a
// refined dialogue has no failed twin to pair with.
func New(d *domain.Domain, ver *verify.Verifier, ch client.Chatter, opts llm.Options) *Engine {
	return &Engine{Base: llm.NewBase(ch, opts.Workers, opts.Dialogues), opts: opts, d: d, ver: ver}
}

// refineRetries is how often a rejected rewrite is asked again.
const refineRetries = 2

// refineParallel bounds the rewrites of one dialogue in flight; the
// client's limiter bounds the run as a whole.
const refineParallel = 8

// refineSystem is the system message of every rewrite request.
const refineSystem = client.RefineHeader + "\n\n" + refineInstructions

const refineInstructions = "Rewrite the line so it sounds natural in the speaker's voice (for the customer: the persona and " +
	"the behaviour). Keep its meaning and every request, question, answer and promise; add no fact. Every string in " +
	"<entities> must appear in your line exactly as written. Reply with the rewritten line only."

// entityPattern finds what a line must keep whatever a blueprint says:
// amounts, emails, dates and times, and tokens with digits (ids, zip
// codes, item numbers, card endings).
var entityPattern = regexp.MustCompile(`\$\d[\d,]*(?:\.\d+)?|[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|` +
	`\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?|\d{1,2}:\d{2}(?::\d{2})?|#?[A-Za-z0-9_]*\d[A-Za-z0-9_]*`)

// blueprintValues lists the values of a blueprint a line may carry:
// the persona's name and known facts, slot values (first and revised),
// the attributes of every selector (first choices included), and the
// required outputs.
func blueprintValues(bp *record.Blueprint) []string {
	vals := map[string]bool{bp.Persona.Name: true}
	for _, p := range strings.Fields(bp.Persona.Name) {
		vals[p] = true
	}
	for _, v := range bp.Persona.Known {
		vals[v] = true
	}
	sel := func(s record.Selector) {
		vals[s.ID] = true
		for _, v := range s.Where {
			vals[v] = true
		}
	}
	for _, g := range bp.Goals {
		sel(g.Target)
		for _, s := range g.Items {
			sel(s)
		}
		for _, s := range g.New {
			sel(s)
		}
		// First choices are said too: one the customer changes its mind
		// from, and one the write fails on.
		for _, s := range g.RevisedItems {
			sel(s)
		}
		for _, s := range g.FailingItems {
			sel(s)
		}
		for _, s := range g.UnavailableNew {
			sel(s)
		}
		for _, v := range g.Slots {
			vals[v] = true
		}
		for _, v := range g.Revised {
			vals[v] = true
		}
		for _, v := range g.FailingSlots {
			vals[v] = true
		}
	}
	for _, o := range bp.Outputs {
		vals[o.Value] = true
	}
	return slices.Sorted(maps.Keys(vals))
}

// Entities lists what a rewrite of line must keep verbatim: the pattern
// matches and the blueprint values the line holds as whole words (a name
// of several words in any case: a customer says "the wireless earbuds"
// for the item "Wireless Earbuds", kept as the line spells it), in order
// of appearance, without those inside a longer one.
func Entities(line string, values []string) []string {
	type hit struct {
		at   int
		text string
	}
	var hits []hit
	for _, loc := range entityPattern.FindAllStringIndex(line, -1) {
		hits = append(hits, hit{loc[0], line[loc[0]:loc[1]]})
	}
	for _, v := range values {
		if len(v) < 2 {
			continue
		}
		if at := wordIndex(line, v); at >= 0 {
			hits = append(hits, hit{at, v})
		} else if strings.Contains(v, " ") && len(strings.ToLower(line)) == len(line) {
			// A name of several words in another case: a lowercased
			// product name.
			if at := wordIndex(strings.ToLower(line), strings.ToLower(v)); at >= 0 {
				hits = append(hits, hit{at, line[at : at+len(v)]})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].at != hits[j].at {
			return hits[i].at < hits[j].at
		}
		return len(hits[i].text) > len(hits[j].text)
	})
	var out []string
	for _, h := range hits {
		inside := false
		for _, o := range out {
			if strings.Contains(o, h.text) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, h.text)
		}
	}
	return out
}

// wordIndex finds v in s where it is not part of a longer word.
func wordIndex(s, v string) int {
	for from := 0; ; {
		i := strings.Index(s[from:], v)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(v)
		if (i == 0 || !isWordByte(s[i-1]) || !isWordByte(v[0])) && (end == len(s) || !isWordByte(s[end]) || !isWordByte(v[len(v)-1])) {
			return i
		}
		from = i + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// acceptRewrite checks a rewrite of orig said by speaker.
func acceptRewrite(speaker, orig, rewrite string, entities []string) bool {
	if rewrite == "" || strings.Contains(rewrite, "###") {
		return false
	}
	for _, ent := range entities {
		if !strings.Contains(rewrite, ent) {
			return false
		}
	}
	if speaker != "user" {
		// Who pays whom is part of an amount (the disclose check reads
		// it): a charge said as a plain amount is consent to nothing.
		return !strings.Contains(orig, "$") ||
			(!verify.SaysCharge(orig) || verify.SaysCharge(rewrite)) && (!verify.SaysRefund(orig) || verify.SaysRefund(rewrite))
	}
	return verify.Affirmative(rewrite) == verify.Affirmative(orig)
}

// Dialogue writes the instruction (with Instructions "llm"), plays the
// skeleton and refines it.
func (e *Engine) Dialogue(ctx context.Context, bp *record.Blueprint, _ map[string]bool) (*engine.Outcome, error) {
	// Once started, a dialogue finishes even if the budget runs out.
	ctx = client.Admitted(ctx)
	st := &engine.LLMStats{}
	m := engine.NewMeter(e.Chat, st)
	if e.opts.Instructions == "llm" {
		w := llm.Writer{Judges: e.opts.Judges, Rewrites: e.opts.Rewrites}
		if err := w.Instruct(ctx, m, bp, st); err != nil {
			return nil, err
		}
	}
	tr, v, err := e.refine(ctx, m, bp, st)
	if err != nil {
		return nil, err
	}
	return &engine.Outcome{Trajectory: tr, Verdict: v, Usage: st}, nil
}

// refine plays the skeleton and has the LLM rewrite its lines.
func (e *Engine) refine(ctx context.Context, ch client.Chatter, bp *record.Blueprint, st *engine.LLMStats) (*record.Trajectory, record.Verdict, error) {
	var skel *record.Trajectory
	var err error
	if cerr := e.OnCPU(ctx, func() { skel, err = embedded.Simulate(ctx, e.d, bp, e.opts.MaxTurns) }); cerr != nil {
		return nil, record.Verdict{}, cerr
	}
	if err != nil {
		return nil, record.Verdict{}, err
	}
	v, err := e.Verify(ctx, e.ver, bp, skel)
	if err != nil {
		return nil, record.Verdict{}, err
	}
	if !v.Passed {
		// Nothing verified to refine: the skeleton goes to rejected/.
		return skel, v, nil
	}
	rs := st.RefineCounts()
	persona, err := json.Marshal(bp.Persona)
	if err != nil {
		return nil, record.Verdict{}, err
	}
	values := blueprintValues(bp)
	if e.d.Model != nil && e.d.Model.TransferMessage() != "" {
		// The policy's transfer message is said word for word (a rule
		// holds it), as every entity is kept.
		values = append(values, e.d.Model.TransferMessage())
	}
	refined := slices.Clone(skel.Messages)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(refineParallel)
	kept := make([]bool, len(refined))
	retries := make([]int, len(refined))
	offered := 0
	for i, m := range skel.Messages {
		if (m.Role != "user" && m.Role != "assistant") || m.Content == "" || len(m.ToolCalls) > 0 {
			continue
		}
		offered++
		rs.Lines++
		g.Go(func() error {
			ents := Entities(m.Content, values)
			entsJSON, err := json.Marshal(ents)
			if err != nil {
				return err
			}
			user := strings.Join([]string{client.Tag("speaker", m.Role), client.Tag("persona", string(persona)), client.Tag("behavior", llm.BehaviorOf(bp.Behavior)),
				client.Tag("entities", string(entsJSON)), client.Tag("line", m.Content)}, "\n\n")
			for attempt := 0; attempt <= refineRetries; attempt++ {
				req := openai.ChatCompletionRequest{Seed: llm.Seed(bp, 0, client.Writer, "refine", strconv.Itoa(i), strconv.Itoa(attempt)),
					Messages: []openai.ChatCompletionMessage{
						{Role: openai.ChatMessageRoleSystem, Content: refineSystem},
						{Role: openai.ChatMessageRoleUser, Content: user}}}
				resp, err := ch.Chat(gctx, client.Writer, client.StageRefine, req)
				if err != nil {
					return fmt.Errorf("blueprint %s, rewriting message %d: %w", bp.ID, i, err)
				}
				if text := strings.TrimSpace(resp.Choices[0].Message.Content); acceptRewrite(m.Role, m.Content, text, ents) {
					refined[i].Content, kept[i] = text, true
					return nil
				}
				if attempt < refineRetries {
					retries[i]++
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, record.Verdict{}, err
	}
	// Every line offered is kept or rejected; only offered lines have
	// retries or a kept rewrite.
	nkept := 0
	for i := range kept {
		rs.Retries += retries[i]
		if kept[i] {
			nkept++
		}
	}
	rs.Kept += nkept
	rs.Rejected += offered - nkept
	tr := *skel
	tr.Messages, tr.Engine = refined, Name
	v2, err := e.Verify(ctx, e.ver, bp, &tr)
	if err != nil {
		return nil, record.Verdict{}, err
	}
	if !v2.Passed {
		rs.Fallbacks++
		return skel, v, nil
	}
	return &tr, v2, nil
}
