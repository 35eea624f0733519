package emulate

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

func chat(t testing.TB, c *openai.Client, req openai.ChatCompletionRequest) string {
	t.Helper()
	res, err := c.CreateChatCompletion(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res.Choices[0].Message.Content
}

func writerRequest(t testing.TB, bp *record.Blueprint, feedback string) openai.ChatCompletionRequest {
	raw, err := json.Marshal(bp)
	if err != nil {
		t.Fatal(err)
	}
	user := llm.Tag("blueprint", string(raw))
	if feedback != "" {
		user += "\n\n" + llm.Tag("feedback", feedback)
	}
	return openai.ChatCompletionRequest{Model: "writer", Messages: []openai.ChatCompletionMessage{
		{Role: "system", Content: llm.WriterHeader + "\nWrite the customer's instruction from the task."}, {Role: "user", Content: user}}}
}

func judgeRequest(t testing.TB, bp *record.Blueprint, instruction string, seed int) openai.ChatCompletionRequest {
	raw, err := json.Marshal(bp)
	if err != nil {
		t.Fatal(err)
	}
	return openai.ChatCompletionRequest{Model: "judge", Seed: &seed, Messages: []openai.ChatCompletionMessage{
		{Role: "system", Content: llm.JudgeHeader + "\nReply with JSON."},
		{Role: "user", Content: llm.Tag("blueprint", string(raw)) + "\n\n" + llm.Tag("instruction", instruction)}}}
}

func refineRequest(t testing.TB, line string, entities []string, speaker, behavior string, seed int) openai.ChatCompletionRequest {
	raw, err := json.Marshal(entities)
	if err != nil {
		t.Fatal(err)
	}
	user := strings.Join([]string{llm.Tag("speaker", speaker), llm.Tag("persona", `{"name":"x"}`), llm.Tag("behavior", behavior),
		llm.Tag("entities", string(raw)), llm.Tag("line", line)}, "\n\n")
	return openai.ChatCompletionRequest{Model: "writer", Seed: &seed, Messages: []openai.ChatCompletionMessage{
		{Role: "system", Content: llm.RefineHeader + "\nKeep every entity."}, {Role: "user", Content: user}}}
}

func review(t testing.TB, text string) llm.Review {
	t.Helper()
	r, err := llm.ParseReview(text)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestWriterKeepsEntities(t *testing.T) {
	f := loadRetail(t)
	_, _, c := start(t, Options{})
	reworded := 0
	for _, bp := range f.bps {
		got := chat(t, c, writerRequest(t, bp, ""))
		if again := chat(t, c, writerRequest(t, bp, "")); again != got {
			t.Errorf("%s: two answers to one request:\n%s\n%s", bp.ID, got, again)
		}
		keep := append(statedEntities(bp), bp.Persona.Name)
		for _, k := range slices.Sorted(maps.Keys(bp.Persona.Known)) {
			if k != "identify" { // how the customer is identified, not a fact they state
				keep = append(keep, bp.Persona.Known[k])
			}
		}
		for _, e := range keep {
			if !strings.Contains(got, e) {
				t.Errorf("%s: the instruction lost %q:\n%s", bp.ID, e, got)
			}
		}
		if got != bp.Instruction {
			reworded++
		}
		fb := chat(t, c, writerRequest(t, bp, "Make it sound more natural."))
		if r := review(t, chat(t, c, judgeRequest(t, bp, fb, 1))); !r.Entails {
			t.Errorf("%s: the rewrite after feedback does not entail the task: %s", bp.ID, r.Feedback)
		}
	}
	if reworded < len(f.bps)/2 {
		t.Errorf("only %d of %d instructions were reworded", reworded, len(f.bps))
	}
}

func TestWriterMistakesAreCaughtByJudges(t *testing.T) {
	f := loadRetail(t)
	_, _, c := start(t, Options{MistakeRate: 1})
	dropped := 0
	for _, bp := range f.bps {
		if len(statedEntities(bp)) == 0 {
			// A refusal of a described record: no id or value to drop.
			continue
		}
		dropped++
		bad := chat(t, c, writerRequest(t, bp, ""))
		r := review(t, chat(t, c, judgeRequest(t, bp, bad, 1)))
		if r.Entails || !strings.Contains(r.Feedback, "leaves out") {
			t.Errorf("%s: a judge accepted an instruction with a dropped entity (%+v):\n%s", bp.ID, r, bad)
		}
		// Feedback makes the writer careful.
		good := chat(t, c, writerRequest(t, bp, r.Feedback))
		if r := review(t, chat(t, c, judgeRequest(t, bp, good, 1))); !r.Entails {
			t.Errorf("%s: the rewrite with feedback still misses %s", bp.ID, r.Feedback)
		}
	}
	if dropped < len(f.bps)/2 {
		t.Errorf("only %d of %d blueprints state an entity a writer could drop", dropped, len(f.bps))
	}
}

func TestJudge(t *testing.T) {
	f := loadRetail(t)
	bp := f.bps[3]
	stated := statedEntities(bp)
	if len(stated) == 0 {
		t.Fatal("blueprint without stated entities")
	}
	missing := drop(bp.Instruction, stated[0], "something")
	for _, tc := range []struct {
		name        string
		mistake     float64
		instruction string
		entails     bool
	}{
		{"template", 0, bp.Instruction, true},
		{"entity dropped", 0, missing, false},
		{"empty", 0, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, c := start(t, Options{MistakeRate: tc.mistake})
			r := review(t, chat(t, c, judgeRequest(t, bp, tc.instruction, 1)))
			if r.Entails != tc.entails || !r.Realistic {
				t.Errorf("review %+v, want entails %v and realistic", r, tc.entails)
			}
			if !tc.entails && !strings.Contains(r.Feedback, stated[0]) {
				t.Errorf("feedback %q does not name the missing %q", r.Feedback, stated[0])
			}
			if tc.entails && r.Feedback != "" {
				t.Errorf("feedback %q on an accepted instruction", r.Feedback)
			}
		})
	}
	// At mistake rate 1 about half the judges find a good instruction
	// unrealistic, and judges with different seeds disagree.
	_, _, c := start(t, Options{MistakeRate: 1})
	votes := map[bool]int{}
	for seed := range 20 {
		votes[review(t, chat(t, c, judgeRequest(t, bp, bp.Instruction, seed))).Realistic]++
	}
	if votes[true] == 0 || votes[false] == 0 {
		t.Errorf("20 judges at mistake rate 1 voted %v; want disagreement", votes)
	}
}

// dialogueLines collects the text lines of embedded dialogues with the
// entities each carries: the goal entities, persona values and value-like
// tokens it contains.
func dialogueLines(t testing.TB, f *fixture) []refineCase {
	var out []refineCase
	for _, bp := range f.bps[:10] {
		tr, err := embedded.Simulate(context.Background(), f.d, bp, maxTurns)
		if err != nil {
			t.Fatal(err)
		}
		known := append(goalEntities(bp), bp.Persona.Name)
		for k, v := range bp.Persona.Known {
			if k != "identify" {
				known = append(known, v)
			}
		}
		for _, m := range tr.Messages {
			if (m.Role != "user" && m.Role != "assistant") || m.Content == "" {
				continue
			}
			ents := present(m.Content, known)
			for _, v := range valueLike.FindAllString(m.Content, -1) {
				if !slices.Contains(ents, v) {
					ents = append(ents, v)
				}
			}
			out = append(out, refineCase{line: m.Content, entities: ents, speaker: m.Role, behavior: bp.Behavior})
		}
	}
	return out
}

type refineCase struct {
	line, speaker, behavior string
	entities                []string
}

func TestRefineKeepsEntitiesAndMeaning(t *testing.T) {
	f := loadRetail(t)
	_, _, c := start(t, Options{})
	lines := dialogueLines(t, f)
	changed := 0
	for _, rc := range lines {
		got := chat(t, c, refineRequest(t, rc.line, rc.entities, rc.speaker, rc.behavior, 1))
		if got == "" || strings.Contains(got, "###") {
			t.Fatalf("rewrite of %q: %q", rc.line, got)
		}
		for _, e := range rc.entities {
			// Entities were found case-insensitively (a state "ME" in
			// "bear with me"), so they are looked for the same way.
			if len(present(got, []string{e})) == 0 {
				t.Errorf("rewrite of %q lost %q: %q", rc.line, e, got)
			}
		}
		if rc.speaker == "user" && verify.Affirmative(rc.line) && !verify.Affirmative(got) {
			t.Errorf("rewrite of the yes %q is no longer a yes: %q", rc.line, got)
		}
		if again := chat(t, c, refineRequest(t, rc.line, rc.entities, rc.speaker, rc.behavior, 1)); again != got {
			t.Errorf("two answers to one request: %q, %q", got, again)
		}
		if got != rc.line {
			changed++
		}
	}
	if changed < len(lines)/3 {
		t.Errorf("only %d of %d lines were reworded", changed, len(lines))
	}
}

func TestRefineMistakesDropEntities(t *testing.T) {
	f := loadRetail(t)
	_, _, c := start(t, Options{MistakeRate: 1})
	dropped, withEntities := 0, 0
	for _, rc := range dialogueLines(t, f) {
		if len(rc.entities) == 0 {
			continue
		}
		withEntities++
		got := chat(t, c, refineRequest(t, rc.line, rc.entities, rc.speaker, rc.behavior, 1))
		for _, e := range rc.entities {
			if !strings.Contains(got, e) {
				dropped++
				break
			}
		}
	}
	if withEntities == 0 || dropped != withEntities {
		t.Errorf("at mistake rate 1, %d of %d rewrites dropped an entity", dropped, withEntities)
	}
}

func TestGenericAssistant(t *testing.T) {
	_, _, c := start(t, Options{})
	got := chat(t, c, openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{
		{Role: "system", Content: "You are a helpful assistant."}, {Role: "user", Content: "one two three"}}})
	if !strings.Contains(got, "3 words") {
		t.Errorf("generic reply %q", got)
	}
}
