package emulate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
)

// goalEntities lists what a customer must state for the ground truth to
// be identifiable: each target, item and replacement (by id, else by
// label) and each slot value, in goal order.
func goalEntities(bp *record.Blueprint) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	sel := func(s record.Selector) {
		if s.ID != "" {
			add(s.ID)
		} else {
			add(s.Label)
		}
	}
	for _, g := range bp.Goals {
		sel(g.Target)
		for _, it := range g.Items {
			sel(it)
		}
		for _, it := range g.New {
			sel(it)
		}
		for _, k := range slices.Sorted(maps.Keys(g.Slots)) {
			add(g.Slots[k])
		}
	}
	return out
}

// statedEntities are the goal entities the blueprint's own template
// instruction states: what every instruction for it must contain (a
// price difference is learnt, not stated).
func statedEntities(bp *record.Blueprint) []string {
	return present(bp.Instruction, goalEntities(bp))
}

// tagged returns the <tag> block of text, a request's userText: callers
// join the user messages once and read every block from the result.
func tagged(text, role, tag string) (string, error) {
	v, ok := llm.Between(text, tag)
	if !ok {
		return "", badf("%s request: the user message has no <%s> block", role, tag)
	}
	return v, nil
}

func blueprintOf(text, role string) (*record.Blueprint, error) {
	raw, err := tagged(text, role, "blueprint")
	if err != nil {
		return nil, err
	}
	var bp record.Blueprint
	if err := json.Unmarshal([]byte(raw), &bp); err != nil {
		return nil, badf("%s request: <blueprint>: %v", role, err)
	}
	return &bp, nil
}

// writerPhrases reword an instruction without touching its facts.
var writerPhrases = []phraseGroup{
	group("You are contacting customer support because you", "You are reaching out to customer support because you", "You are getting in touch with customer service because you"),
	group("You want", "You would like", "You'd like"),
	group("Also,", "In addition,", "On top of that,", "Besides that,"),
	group("Make sure you learn the", "Be sure to find out the", "Make sure you are told the"),
	group("You do not know your", "You don't know your", "You do not have your"),
	group("Your email is", "Your email address is", "The email on your account is"),
	group("Your zip code is", "Your ZIP code is", "Your postal code is"),
	group("accept it if the agent says it cannot be done", "accept it if the agent says it is not possible", "let it go if the agent says it cannot be done"),
	group("settling any difference with", "settling any price difference with", "paying or receiving any difference through"),
	group("shipped to", "sent to", "delivered to"),
}

// write plays the writer: the blueprint's instruction, reworded. With no
// feedback it sometimes leaves an entity out, so the judges have
// something to reject.
func (s *Server) write(req *chatRequest) (reply, error) {
	user := req.userText()
	bp, err := blueprintOf(user, roleWriter)
	if err != nil {
		return reply{}, err
	}
	feedback, hasFeedback := llm.Between(user, "feedback")
	base := bp.Instruction
	if base == "" {
		return reply{}, badf("%s request: the blueprint has no instruction to reword", roleWriter)
	}
	keep := append(goalEntities(bp), bp.Persona.Name)
	for _, k := range slices.Sorted(maps.Keys(bp.Persona.Known)) {
		if k != "identify" { // the tool that identifies them: not said
			keep = append(keep, bp.Persona.Known[k])
		}
	}
	segs := protect(base, keep)
	swap(segs, writerPhrases, rngFor("writer", bp.ID, feedback))
	text := join(segs)
	if !hasFeedback && s.opts.MistakeRate > 0 && unit("writer-mistake", bp.ID) < s.opts.MistakeRate {
		if stated := present(text, statedEntities(bp)); len(stated) > 0 {
			e := stated[rngFor("writer-drop", bp.ID).IntN(len(stated))]
			text = drop(text, e, "that one")
		}
	}
	return reply{Content: text}, nil
}

// judge plays one judge of the committee: the instruction entails the
// ground truth when it names every entity the customer must state; it is
// realistic unless this judge (seeded by the request) thinks otherwise.
func (s *Server) judge(req *chatRequest) (reply, error) {
	user := req.userText()
	bp, err := blueprintOf(user, roleJudge)
	if err != nil {
		return reply{}, err
	}
	instruction, err := tagged(user, roleJudge, "instruction")
	if err != nil {
		return reply{}, err
	}
	lower := strings.ToLower(instruction)
	var missing []string
	for _, e := range statedEntities(bp) {
		if !strings.Contains(lower, strings.ToLower(e)) {
			missing = append(missing, strconv.Quote(e))
		}
	}
	rv := llm.Review{
		Entails:   len(missing) == 0,
		Realistic: !(s.opts.MistakeRate > 0 && unit("judge", bp.ID, instruction, req.seed(), req.User) < s.opts.MistakeRate/2),
	}
	var fb []string
	if !rv.Entails {
		fb = append(fb, fmt.Sprintf("The instruction leaves out %s; name each exactly as the task gives it, so the customer asks for exactly this task.", strings.Join(missing, ", ")))
	}
	if !rv.Realistic {
		fb = append(fb, "It reads like a form rather than a customer; say the same in a person's own words.")
	}
	rv.Feedback = strings.Join(fb, " ")
	out, err := json.Marshal(rv)
	if err != nil {
		return reply{}, err
	}
	return reply{Content: string(out)}, nil
}
