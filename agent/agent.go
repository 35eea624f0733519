package agent

import (
	"context"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/record"
)

// Turn is what the agent produced in reply to one user message: its tool
// calls with their results, then a message to the user.
type Turn struct {
	Messages []record.Message
	Ask      dialog.Ask
}

// Agent answers user turns.
type Agent interface {
	Respond(ctx context.Context, in dialog.Turn) (Turn, error)
}

const idChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// CallID makes a 9-alphanumeric tool-call id, the form Mistral templates require.
func CallID(rng *rand.Rand) string {
	b := make([]byte, 9)
	for i := range b {
		b[i] = idChars[rng.IntN(len(idChars))]
	}
	return string(b)
}

// joinText puts the sentences said before a message in front of it.
func joinText(lead []string, last string) string {
	return strings.TrimSpace(strings.Join(append(slices.Clone(lead), last), " "))
}

// yours turns the customer's words about their things into the agent's,
// whole words only: "economy" keeps its "my".
func yours(label string) string {
	return firstPerson.ReplaceAllStringFunc(label, func(w string) string {
		switch w {
		case "my":
			return "your"
		case "My":
			return "Your"
		}
		return "you " + strings.Fields(w)[1]
	})
}

// theirs is a customer's description as the agent's reasoning speaks of
// the customer: "my oldest order" is "their oldest order".
func theirs(label string) string {
	return secondPerson.ReplaceAllStringFunc(yours(label), func(w string) string {
		return map[string]string{"your": "their", "Your": "Their", "you": "they"}[w]
	})
}

var secondPerson = regexp.MustCompile(`\b(?:[Yy]our|you)\b`)

var firstPerson = regexp.MustCompile(`\b(?:[Mm]y|I have|I placed)\b`)
