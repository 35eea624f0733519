package usersim

import (
	"regexp"
	"strings"
	"testing"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/verify"
)

// allForms lists every text a template expands to, each {a|b} group
// taking each of its alternatives in turn.
func allForms(tmpl string) []string {
	open := strings.IndexByte(tmpl, '{')
	if open < 0 {
		return []string{tmpl}
	}
	depth, end := 0, -1
	var cuts []int
	for i := open; i < len(tmpl) && end < 0; i++ {
		switch tmpl[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				end = i
			}
		case '|':
			if depth == 1 {
				cuts = append(cuts, i)
			}
		}
	}
	var alts []string
	from := open + 1
	for _, c := range append(cuts, end) {
		alts = append(alts, tmpl[from:c])
		from = c + 1
	}
	var out []string
	for _, a := range alts {
		for _, rest := range allForms(tmpl[:open] + a + tmpl[end+1:]) {
			out = append(out, rest)
		}
	}
	return out
}

// customerBanks are the customer's phrase banks said in any domain.
func customerBanks() map[string][]string {
	return map[string][]string{
		"greetings": greetings, "confirms": confirms, "revisions": revisions, "dones": dones, "nextGoal": nextGoal, "acks": acks,
		"reminders": reminders, "digressions": digressions, "asides": asides, "verboseFillers": verboseFillers, "impatientOpeners": impatientOpeners,
		"impatientClosers": impatientClosers, "failedOverLeads": failedOverLeads, "forgotKey": forgotKey, "notSure": notSure,
		"genericIdentify": genericIdentify, "genericIdentifyOne": genericIdentifyOne, "genericIdentifyRest": genericIdentifyRest, "genericIdentifyRetry": genericIdentifyRetry,
		"genericRequests": genericRequests, "genericQuestions": genericQuestions, "genericSlotPieces": genericSlotPieces,
		"genericSaidPieces": genericSaidPieces, "genericTextPieces": genericTextPieces, "genericChoicePieces": genericChoicePieces,
		"genericGroupPieces": genericGroupPieces, "genericPickPieces": genericPickPieces, "genericNewPieces": genericNewPieces,
		"genericNewPiecesMany": genericNewPiecesMany, "correctTargetID": correctTargetID, "correctTargetLabel": correctTargetLabel,
		"correctSlot": correctSlot, "correctSlotPlain": correctSlotPlain, "correctSaid": correctSaid, "correctChoice": correctChoice,
		"correctNew": correctNew, "revisedSwitch": revisedSwitch, "revisedReason": revisedReason, "correctSwitch": correctSwitch, "correctReason": correctReason, "genericSwitchPieces": genericSwitchPieces, "genericReasonPieces": genericReasonPieces, "askFigure": askFigure, "pushbacks": pushbacks,
		"pushbacksAgain": pushbacksAgain, "pushbacksLast": pushbacksLast, "givesIn": givesIn,
	}
}

// capAfterComma is a sentence word capitalised after a comma or a dash:
// "No, wait, What will …".
var capAfterComma = regexp.MustCompile(`(,|—) [A-Z][a-z]`)

// lowAfterStop is a sentence that starts lower-case.
var lowAfterStop = regexp.MustCompile(`[.?!] [a-z]`)

// TestNoCapitalAfterComma: no form of a customer's phrase capitalises
// the word after a comma, as "No, wait, What will the refund be" did.
func TestNoCapitalAfterComma(t *testing.T) {
	for name, bank := range customerBanks() {
		for _, tmpl := range bank {
			for _, form := range allForms(tmpl) {
				if got := dialog.Tidy(form); capAfterComma.MatchString(got) || lowAfterStop.MatchString(got) {
					t.Errorf("%s: %q", name, got)
					break
				}
			}
		}
	}
}

// storeTalk are words of small talk that fit only a shop.
var storeTalk = regexp.MustCompile(`(?i)\b(store|shop|shopping|delivery|delivered|order|loyalty)\b`)

// TestSmallTalkFitsAnyDomain: the small talk of a talkative customer is
// said to an airline or a cloud API as much as to a store, so no form
// of it speaks of a store ("my neighbour recommended your store").
func TestSmallTalkFitsAnyDomain(t *testing.T) {
	for name, bank := range map[string][]string{"verboseFillers": verboseFillers, "digressions": digressions, "pushbacks": pushbacks,
		"pushbacksAgain": pushbacksAgain, "pushbacksLast": pushbacksLast, "givesIn": givesIn,
		"greetings": greetings, "impatientOpeners": impatientOpeners, "impatientClosers": impatientClosers, "acks": acks, "dones": dones} {
		for _, tmpl := range bank {
			for _, form := range allForms(tmpl) {
				if storeTalk.MatchString(form) {
					t.Errorf("%s: %q speaks of a store", name, form)
					break
				}
			}
		}
	}
}

// TestSettingSpeech: a yes/no setting the pack says nothing about is
// said as a sentence about the setting; one the pack words is not.
func TestSettingSpeech(t *testing.T) {
	boolean := func(name string, say map[string]string) *model.ParamModel {
		return &model.ParamModel{Name: name, Schema: map[string]any{"type": "boolean"}, Choices: []string{"true", "false"}, Say: say}
	}
	for _, tc := range []struct {
		p        *model.ParamModel
		v        string
		want     string // "" for a value said some other way
		wantSaid string
	}{
		{boolean("deaf", map[string]string{"true": "deaf", "false": "not deaf"}), "true", "deaf on", "the deaf setting"},
		{boolean("is_enabled", map[string]string{"true": "enabled", "false": "not enabled"}), "false", "enabled off", "the enabled setting"},
		{boolean("insurance", map[string]string{"true": "travel insurance", "false": "no travel insurance"}), "true", "", ""},
		{&model.ParamModel{Name: "cabin", Schema: map[string]any{"type": "string"}, Choices: []string{"economy", "business"}}, "economy", "", ""},
		{nil, "true", "", ""},
	} {
		what, on, ok := setting(tc.p, tc.v)
		got := ""
		if ok {
			got = what + " " + onOff(on)
		}
		if got != tc.want {
			t.Errorf("setting(%v, %q) = %q, want %q", tc.p, tc.v, got, tc.want)
		}
		if !ok {
			continue
		}
		u := &speaker{rng: rngFor(1)}
		for range 40 {
			text := u.say(genericSwitchPieces, map[string]string{"what": what, "state": onOff(on)})
			if !strings.Contains(text, what) || !strings.Contains(text, " "+onOff(on)) || strings.Contains(strings.ToLower(text), "not "+what) {
				t.Errorf("%q does not say the %s setting is %s", text, what, onOff(on))
			}
		}
	}
}

// TestReasonSpeech: a reason chosen among a few is said as why, the
// value whole in it: "It was ordered by mistake.", never "The reason
// will be ordered by mistake." or "No longer needed, please."
func TestReasonSpeech(t *testing.T) {
	reason := &model.ParamModel{Name: "reason", Schema: map[string]any{"type": "string"}, Choices: []string{"no longer needed", "ordered by mistake"}}
	for _, tc := range []struct {
		p    *model.ParamModel
		v    string
		want string
	}{
		{reason, "ordered by mistake", "it was ordered by mistake"},
		{reason, "no longer needed", "it's no longer needed"},
		{&model.ParamModel{Name: "cancel_reason", Choices: []string{"damaged", "other"}}, "damaged", "it was damaged"},
		{&model.ParamModel{Name: "reason", Choices: []string{"a family emergency", "bad weather"}}, "bad weather", ""},
		{&model.ParamModel{Name: "reason", Choices: []string{"change of plan", "other reasons"}}, "other reasons", ""},
		{&model.ParamModel{Name: "cancel_reason", Choices: []string{"duplicate_booking", "other"}}, "duplicate_booking", ""},
		{&model.ParamModel{Name: "cancel_reason", Choices: []string{"other"}}, "other", ""},
		{&model.ParamModel{Name: "cabin", Choices: []string{"basic_economy"}}, "basic_economy", ""},
		{&model.ParamModel{Name: "reason", Schema: map[string]any{"type": "string"}}, "the lid broke", ""},
	} {
		got, _ := model.ReasonClause(tc.p, tc.v)
		if got != tc.want {
			t.Errorf("model.ReasonClause(%s, %q) = %q, want %q", tc.p.Name, tc.v, got, tc.want)
		}
	}
	u := &speaker{rng: rngFor(2)}
	for range 60 {
		text := u.say(genericReasonPieces, map[string]string{"what": "reason", "clause": "it was ordered by mistake"})
		if !strings.Contains(strings.ToLower(text), "it was ordered by mistake") || regexp.MustCompile(`(?i)reason (will|should|would) be|please`).MatchString(text) {
			t.Errorf("reason said as %q", text)
		}
	}
}

// TestLiteralKeepsItsCase: a value given as it is keeps its case where
// it opens a sentence ("defaultdb.", never "Defaultdb."), while the
// template's own words still start their sentences upper-case.
func TestLiteralKeepsItsCase(t *testing.T) {
	for _, tc := range []struct {
		tmpl, value, want string
	}{
		{"<value>{.|}", "defaultdb", "defaultdb"},
		{"<value>, please.", "landing page check", "landing page check, please."},
		{"Hmm. <value>.", "db-postgresql-nyc3", "Hmm. db-postgresql-nyc3."},
		{"the name is <value>. thanks.", "calm comet", "The name is calm comet. Thanks."},
		{"<value>  .", "", ""},
	} {
		u := &speaker{rng: rngFor(3)}
		got := u.say([]string{tc.tmpl}, map[string]string{"value": tc.value}, "value")
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("say(%q, %q) = %q, want it to start %q", tc.tmpl, tc.value, got, tc.want)
		}
	}
}

// TestNewFormsAreNoYes: a change of mind or a correction said as a
// sentence is never read as the yes to the proposal before it.
func TestNewFormsAreNoYes(t *testing.T) {
	slots := map[string]string{"what": "deaf", "state": "on", "clause": "it was ordered by mistake"}
	for name, bank := range map[string][]string{"revisedSwitch": revisedSwitch, "revisedReason": revisedReason, "correctSwitch": correctSwitch, "correctReason": correctReason} {
		for _, tmpl := range bank {
			for _, form := range allForms(tmpl) {
				if text := dialog.Tidy(dialog.Fill(form, slots)); verify.Affirmative(text) {
					t.Errorf("%s: %q reads as a yes", name, text)
				}
			}
		}
	}
}

// TestNotLeading: a literal that reads as a lower-case word never opens
// a message, where kept as it is it would start a sentence lower-case;
// one that cannot be mistaken for a word ("LessThan", an email) may.
func TestNotLeading(t *testing.T) {
	for _, tc := range []struct {
		value string
		bank  []string
		want  int // templates kept
	}{
		{"defaultdb", genericSlotPieces, 2},
		{"defaultdb", genericSlotPieces[1:2], 1},
		{"LessThan", genericSlotPieces, 3},
		{"jo@example.com", genericSlotPieces, 3},
		{"landing page check", genericTextPieces, 2},
	} {
		got := notLeading(tc.bank, tc.value)
		if len(got) != tc.want {
			t.Errorf("notLeading(%q) kept %d of %d templates: %q", tc.value, len(got), len(tc.bank), got)
		}
		u := &speaker{rng: rngFor(4)}
		for range 30 {
			text := u.say(got, map[string]string{"what": "name", "value": tc.value}, "value")
			if !strings.Contains(text, tc.value) || lowStart(text) {
				t.Errorf("%q: %q", tc.value, text)
			}
		}
	}
}

func lowStart(s string) bool { return s != "" && s[0] >= 'a' && s[0] <= 'z' && dialog.PlainWord(s) }

// TestValueEndsItsSentence: a value said as it is that ends in its own
// full stop takes no second one from the template; an ellipsis inside it
// stays.
func TestValueEndsItsSentence(t *testing.T) {
	const v = "Shares his love of the C...language. And possibly R."
	u := &speaker{rng: rngFor(5)}
	for range 40 {
		text := u.say(genericTextPieces, map[string]string{"what": "description", "value": v}, "value")
		if !strings.Contains(text, v) || strings.Contains(text, "R..") {
			t.Fatalf("%q", text)
		}
	}
}
