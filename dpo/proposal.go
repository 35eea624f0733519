package dpo

import (
	"encoding/json"
	"iter"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// A mistake decided at a proposal shows in its words: the rejected side
// stops where the agent asks for the customer's yes (the customer then
// turned it down, or the write runs only after the next customer turn,
// past the pair's cut), so the label is held to what the proposal names
// against what the chosen side names at the same point. The write the
// chosen side proposes there, the ground truth's next, is the reference.

// proposalShows reports whether a rejected side that runs no write shows
// label in its words, and why not.
func (c *LabelChecker) proposalShows(bp *record.Blueprint, label string, prompt, chosen, rejected []record.Message, cw []toolCall) (bool, string) {
	if !endsWithWords(rejected) {
		return false, "the rejected side runs no write and does not end with the agent's words"
	}
	if len(cw) > 0 {
		return false, "the rejected side runs no write where the chosen side writes"
	}
	// What a side names: the agent's words and its calls' arguments.
	cText, rText := textOf(chosen, "assistant", true), textOf(rejected, "assistant", true)
	tool, gold := c.goldWrite(bp, prompt)
	key := targetKey(gold)
	target := strings.ToLower(tools.Text(gold[key]))
	sameTarget := key == "" || strings.Contains(cText, target) && strings.Contains(rText, target)
	switch label {
	case agent.FlawWrongTarget, agent.FlawGuessedTarget:
		if key == "" || !strings.Contains(cText, target) || strings.Contains(rText, target) {
			return false, "the rejected side's words do not leave the ground truth's target for another"
		}
		if other := namedRecords(rText, cText, textOf(prompt, "", true)); len(other) == 0 {
			return false, "the rejected side's words name no other record the dialogue held"
		}
		if label == agent.FlawGuessedTarget && c.reads(callsOf(rejected, 0)) > c.reads(callsOf(chosen, 0)) {
			return false, "the rejected side reads more than the chosen side before naming its record"
		}
		return true, ""
	case agent.FlawWrongArgument, agent.FlawMiscomputed:
		only := map[string]bool{}
		if label == agent.FlawMiscomputed {
			for _, r := range c.rules(pack.RuleComputed, tool) {
				for _, a := range r.Args {
					only[a] = true
				}
			}
		}
		if sameTarget && changedArgument(gold, key, cText, rText, only, recordWords(prompt)) {
			return true, ""
		}
		return false, "the rejected side's words on the same target name every value of the ground truth's write the chosen side names"
	case agent.FlawNoOpWrite:
		if sameTarget && keepsValue(gold, key, target, cText, rText, prompt) {
			return true, ""
		}
		return false, "the rejected side's words name no value the target already has where the chosen side names a new one"
	case agent.FlawHallucinatedID:
		seen := textOf(prompt, "", true) + "\n" + textOf(rejected, "tool", false)
		for _, id := range idTokens(rText) {
			if !strings.Contains(seen, id) {
				return true, ""
			}
		}
		return false, "every id the rejected side names was in a tool result or a customer message"
	}
	return c.omits(label, chosen, rejected)
}

// omits reports whether the rejected side's words leave out what the
// chosen side's say and label names: a figure (undisclosed) or a
// reminder a say rule wants (no_reminder).
func (c *LabelChecker) omits(label string, chosen, rejected []record.Message) (bool, string) {
	// The agent's words on each side.
	cWords, rWords := textOf(chosen, "assistant", false), textOf(rejected, "assistant", false)
	switch label {
	case agent.FlawUndisclosed:
		for _, f := range figure.FindAllString(cWords, -1) {
			if !strings.Contains(rWords, f) {
				return true, ""
			}
		}
		return false, "the rejected side's words state every figure the chosen side states"
	case agent.FlawNoReminder:
		for _, r := range c.rules(pack.RuleSay, "") {
			said := func(words string) bool {
				return slices.ContainsFunc(r.Phrases, func(p string) bool { return strings.Contains(words, strings.ToLower(p)) })
			}
			if said(cWords) && !said(rWords) {
				return true, ""
			}
		}
		return false, "the rejected side's words say every reminder the chosen side says"
	}
	return false, "the rejected side runs no write"
}

// keepsValue reports whether, for an argument whose value the chosen
// side names and the rejected side does not, the rejected side names
// instead the value the target's record already holds under the same
// name (its address, its cabin), as a tool result in the prompt shows.
func keepsValue(args map[string]any, key, target, cText, rText string, prompt []record.Message) bool {
	var rec map[string]any
	for content, v := range toolResults(prompt) {
		if obj, ok := v.(map[string]any); ok && strings.Contains(strings.ToLower(content), target) {
			rec = obj
		}
	}
	if rec == nil {
		return false
	}
	fields := map[string]string{}
	collect(rec, fields)
	for name, v := range args {
		cur, ok := fields[name]
		if name == key || !ok {
			continue
		}
		for _, leaf := range leaves(v) {
			if leaf != cur && strings.Contains(cText, leaf) && !strings.Contains(rText, leaf) && strings.Contains(rText, cur) {
				return true
			}
		}
	}
	return false
}

// collect gathers a record's scalar fields by name, nested ones too
// (address.city as city), lower-cased.
func collect(v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if l := leaves(e); len(l) == 1 {
				if _, scalar := e.(map[string]any); !scalar {
					out[k] = l[0]
				}
			}
			collect(e, out)
		}
	case []any:
		for _, e := range x {
			collect(e, out)
		}
	}
}

// figure is an amount of money as the agent states one.
var figure = regexp.MustCompile(`\$[0-9][0-9,]*(\.[0-9]+)?`)

// goldWrite is the ground truth's next write after the prompt: the
// chosen side, which proposes it, makes none yet. Its own arguments, not
// the first of its tool's: a task's second return is not its first.
func (c *LabelChecker) goldWrite(bp *record.Blueprint, prompt []record.Message) (string, map[string]any) {
	next := c.pendingGold(bp, prompt)
	if len(next) == 0 {
		return "", nil
	}
	var args map[string]any
	if json.Unmarshal(next[0].Arguments, &args) != nil {
		return "", nil
	}
	return next[0].Tool, args
}

func (c *LabelChecker) rules(kind, tool string) []pack.Rule {
	if c.m == nil {
		return nil
	}
	return c.m.RulesFor(kind, tool)
}

func (c *LabelChecker) reads(cs []toolCall) int {
	n := 0
	for _, x := range cs {
		if c.tools.Kind(x.name) == record.KindRead {
			n++
		}
	}
	return n
}

// changedArgument reports whether a value of the write's arguments
// (the target key's aside; only those under only, when given) is named
// by the chosen side's words and not by the rejected side's. An id is
// named by itself or by its record's words (records): a proposal says
// "your Amex ending in 1252", not credit_card_9969687.
func changedArgument(args map[string]any, key, cText, rText string, only map[string]bool, records map[string][]string) bool {
	for name, v := range args {
		if name == key || len(only) > 0 && !only[name] {
			continue
		}
		for _, leaf := range leaves(v) {
			for _, w := range append([]string{leaf}, records[leaf]...) {
				if strings.Contains(cText, w) && !strings.Contains(rText, w) {
					return true
				}
			}
		}
	}
	return false
}

// recordWords maps the id of every record the prompt's tool results
// hold (an object's id or *_id field) to the words its other text
// fields give, lower-cased, underscores as spaces (source gift_card:
// "gift card"). Numbers are left out: a figure the rejected side does
// not state is another label's.
func recordWords(prompt []record.Message) map[string][]string {
	out := map[string][]string{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			var id string
			var words []string
			for k, e := range x {
				s, ok := e.(string)
				switch {
				case !ok:
					walk(e)
				case k == "id" || strings.HasSuffix(k, "_id"):
					id = strings.ToLower(s)
				case len(s) >= 3:
					words = append(words, strings.ReplaceAll(strings.ToLower(s), "_", " "))
				}
			}
			if id != "" && len(words) > 0 {
				slices.Sort(words)
				out[id] = words
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, v := range toolResults(prompt) {
		walk(v)
	}
	return out
}

// toolResults yields the prompt's tool results that are JSON, with the
// text they were read from.
func toolResults(prompt []record.Message) iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for _, m := range prompt {
			var v any
			if m.Role == "tool" && json.Unmarshal([]byte(m.Content), &v) == nil && !yield(m.Content, v) {
				return
			}
		}
	}
}

// leaves are the scalar values of an argument, lower-cased, as words
// would name them; booleans and one-character values name nothing.
func leaves(v any) []string {
	switch x := v.(type) {
	case map[string]any:
		var out []string
		for _, e := range x {
			out = append(out, leaves(e)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, leaves(e)...)
		}
		return out
	case bool, nil:
		return nil
	}
	s := strings.ToLower(tools.Text(v))
	if len(s) < 2 {
		return nil
	}
	return []string{s}
}

// namedRecords are the ids the rejected side names that the chosen side
// does not and that the dialogue held before (records the agent knew).
func namedRecords(rText, cText, seen string) []string {
	var out []string
	for _, id := range idTokens(rText) {
		if !strings.Contains(cText, id) && strings.Contains(seen, id) {
			out = append(out, id)
		}
	}
	return out
}

// idTokens are the words of text that read as ids: six characters or
// more with a digit, split at spaces and punctuation other than # _ -.
func idTokens(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("#_-", r)
	}) {
		w = strings.Trim(w, "-_")
		if len(w) >= 6 && strings.ContainsFunc(w, unicode.IsDigit) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// textOf is the text of msgs of a role ("" for every role) with, when
// args, their calls' arguments, lower-cased: what a side or the history
// names, for the substring tests above.
func textOf(msgs []record.Message, role string, args bool) string {
	var b strings.Builder
	for _, m := range msgs {
		if role != "" && m.Role != role {
			continue
		}
		b.WriteString(m.Content + "\n")
		if !args {
			continue
		}
		for _, x := range m.ToolCalls {
			b.WriteString(x.Function.Arguments + "\n")
		}
	}
	return strings.ToLower(b.String())
}
