package emulate

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/synth-data/synth/llm"
)

// Phrase groups of the refiner. None of them holds a negation ("no",
// "not", "don't", "actually", "wait", "instead"), so a customer's yes
// stays a yes (verify.Affirmative).
var (
	customerPhrases = []phraseGroup{
		group("I'd like to", "I would like to", "I want to"),
		group("Can you", "Could you", "Would you"),
		group("Hello", "Hi", "Hey there"),
		group("Thanks", "Thank you", "Many thanks"),
		group("That's all", "That's everything", "That is all"),
		group("Yes", "Yes", "Yep", "Yes indeed"),
		group("go ahead", "go ahead", "proceed"),
	}
	agentPhrases = []phraseGroup{
		group("Could you tell me", "Can you tell me", "Would you tell me"),
		group("Could you give me", "Can you give me", "Could you share"),
		group("Shall I proceed?", "Should I go ahead?", "May I proceed?", "Do you want me to proceed?"),
		group("Is there anything else", "Is there something else", "Anything else"),
		group("Have a nice day", "Have a great day", "Enjoy the rest of your day"),
		group("Thank you for reaching out", "Thanks for contacting us", "Thank you for getting in touch"),
		group("Just to confirm:", "To confirm:", "Let me confirm:"),
		group("Here's what I'll do", "This is what I'll do", "Here is the plan"),
		group("Done!", "All done!", "Finished!"),
		group("I've verified your account", "Your account is verified", "I have verified your account"),
	}
	// openers colour a customer's line by behaviour profile.
	openers = map[string][]string{
		"impatient":    {"Quickly, please: ", "Let's be fast: ", ""},
		"verbose":      {"So, to explain, ", "Right, so, ", "Well, "},
		"confused":     {"Sorry if this is unclear: ", "Hmm, I think ", "Um, "},
		"changes_mind": {"Hmm, ", "Okay, ", ""},
		"upfront":      {"", "Hi, "},
		"piecemeal":    {"", "Also, "},
		"minimal":      {""},
		"typos":        {"", "ok "},
	}
	// agentOpeners precede an agent's question (not a greeting or thanks).
	agentOpeners = []string{"", "", "Got it. ", "Thanks. "}
)

// refine plays the hybrid engine's rewriter: a deterministic paraphrase
// in the speaker's voice that keeps every entity verbatim, except that
// now and then it drops one (the engine must catch that and retry).
func (s *Server) refine(req *chatRequest) (reply, error) {
	user := req.userText()
	line, err := tagged(user, roleRefiner, "line")
	if err != nil {
		return reply{}, err
	}
	var entities []string
	if raw, ok := llm.Between(user, "entities"); ok && raw != "" {
		if err := json.Unmarshal([]byte(raw), &entities); err != nil {
			return reply{}, badf("refine request: <entities> must be a JSON array of strings: %v", err)
		}
	}
	speaker, _ := llm.Between(user, "speaker")
	behavior, _ := llm.Between(user, "behavior")
	labels := []string{"refine", line, strings.Join(entities, "\x00"), speaker, behavior, req.seed(), req.User}
	rng := rngFor(labels...)

	phrases, lead := customerPhrases, openers[behavior]
	if speaker == "assistant" {
		phrases, lead = agentPhrases, nil
		first, _, _ := strings.Cut(strings.ToLower(line), " ")
		if strings.HasSuffix(line, "?") && !strings.HasPrefix(first, "thank") && !strings.HasPrefix(first, "hi") && !strings.HasPrefix(first, "hello") {
			lead = agentOpeners
		}
	}
	segs := protect(line, entities)
	swap(segs, phrases, rng)
	text := strings.TrimSpace(join(segs))
	// Move a trailing "please" to the front, a fixed reordering, unless
	// its comma ends a value ("ending in 3927, please"): the value's
	// token is protected whole.
	if body, ok := strings.CutSuffix(strings.TrimRight(text, "."), ", please"); ok && rng.IntN(2) == 0 && body != "" && !valueLike.MatchString(body[strings.LastIndex(body, " ")+1:]) {
		text = "Please, " + lowerFirst(body) + "."
	}
	if len(lead) > 0 {
		text = open(lead[rng.IntN(len(lead))], text)
	}
	if s.opts.MistakeRate > 0 && unit(append(labels, "mistake")...) < s.opts.MistakeRate {
		if in := present(text, entities); len(in) > 0 {
			text = drop(text, in[rng.IntN(len(in))], "that")
		}
	}
	return reply{Content: text}, nil
}

// open puts an opener before a line. After a full stop the line keeps
// its capital; otherwise its first word is lowered, and a line whose
// first word must keep its capital (a name, an id) gets no opener.
func open(opener, text string) string {
	switch {
	case opener == "":
		return text
	case strings.HasSuffix(opener, ". ") || strings.HasSuffix(opener, "! "):
		return opener + text
	}
	if lowered := lowerFirst(text); lowered != text || !startsUpper(text) || keepsCapital(text) {
		return opener + lowered
	}
	return text
}

func startsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) && unicode.IsUpper(r)
}

// lowerFirst lowers the first letter of a line that starts with a
// common word, so an opener can precede it; names, ids and "I" keep
// their capitals.
func lowerFirst(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if !starters[strings.ToLower(strings.TrimRight(first, ",.!?"))] {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// starters are the common words a line may start with.
var starters = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an the my our your this that that's it it's what which how when where is are do does could can would will " +
		"please yes yeah yep sure okay ok so and but also here here's just let let's done all great perfect certainly hello hi hey thanks thank " +
		"we you there to for from in on") {
		m[w] = true
	}
	return m
}()
