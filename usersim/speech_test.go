package usersim

import (
	"regexp"
	"strings"
	"testing"

	"github.com/synth-data/synth/dialog"
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
		"reminders": reminders, "digressions": digressions, "verboseFillers": verboseFillers, "impatientOpeners": impatientOpeners,
		"impatientClosers": impatientClosers, "failedOverLeads": failedOverLeads, "forgotKey": forgotKey, "notSure": notSure,
		"genericIdentify": genericIdentify, "genericIdentifyRest": genericIdentifyRest, "genericIdentifyRetry": genericIdentifyRetry,
		"genericRequests": genericRequests, "genericQuestions": genericQuestions, "genericSlotPieces": genericSlotPieces,
		"genericSaidPieces": genericSaidPieces, "genericTextPieces": genericTextPieces, "genericChoicePieces": genericChoicePieces,
		"genericGroupPieces": genericGroupPieces, "genericPickPieces": genericPickPieces, "genericNewPieces": genericNewPieces,
		"genericNewPiecesMany": genericNewPiecesMany, "correctTargetID": correctTargetID, "correctTargetLabel": correctTargetLabel,
		"correctSlot": correctSlot, "correctSlotPlain": correctSlotPlain, "correctSaid": correctSaid, "correctChoice": correctChoice,
		"correctNew": correctNew, "askFigure": askFigure, "pushbacks": pushbacks,
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
