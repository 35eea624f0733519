package agent

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestCallID(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9]{9}$`)
	seen := map[string]bool{}
	chars := map[byte]int{}
	for seed := range 20 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		for range 500 {
			id := CallID(rng)
			if !re.MatchString(id) {
				t.Fatalf("CallID() = %q, not 9 alphanumerics", id)
			}
			if seen[id] {
				t.Errorf("CallID repeated %q", id)
			}
			seen[id] = true
			for i := range id {
				chars[id[i]]++
			}
		}
	}
	// Every character of the alphabet is used: upper, lower and digits.
	if len(chars) != len(idChars) {
		t.Errorf("%d distinct characters used, want %d", len(chars), len(idChars))
	}
	a := CallID(rand.New(rand.NewPCG(1, 2)))
	b := CallID(rand.New(rand.NewPCG(1, 2)))
	if a != b {
		t.Errorf("CallID is not deterministic: %q vs %q", a, b)
	}
}

// The agent's templates are well formed: balanced groups (an unbalanced
// one makes dialog.Render recurse forever) and known slots.
func TestAgentTemplatesWellFormed(t *testing.T) {
	lists := map[string][]string{
		"greetIdentify": greetIdentify, "identifyAgain": identifyAgain, "authed": authed, "askHelp": askHelp,
		"askAnythingElse": askAnythingElse, "closings": closings, "found": found, "confirmAsk": confirmAsk,
		"proposeLead": proposeLead, "doneLead": doneLead, "transferMsg": transferMsg,
	}
	for k, v := range askPiece {
		lists["askPiece."+k] = v
	}
	for k, v := range refuse {
		lists["refuse."+k] = v
	}
	slots := []string{"first", "verb", "payverb", "what", "detail", "action"}
	for name, tmpls := range lists {
		if len(tmpls) == 0 {
			t.Errorf("%s is empty", name)
		}
		for _, tm := range tmpls {
			depth := 0
			for _, c := range tm {
				if c == '{' {
					depth++
				} else if c == '}' {
					depth--
				}
				if depth < 0 {
					break
				}
			}
			if depth != 0 {
				t.Errorf("%s: unbalanced template %q", name, tm)
			}
			for rest := tm; ; {
				i := strings.IndexByte(rest, '<')
				if i < 0 {
					break
				}
				j := strings.IndexByte(rest[i:], '>')
				if j < 0 {
					t.Errorf("%s: unterminated slot in %q", name, tm)
					break
				}
				if s := rest[i+1 : i+j]; !slices.Contains(slots, s) {
					t.Errorf("%s: unknown slot <%s> in %q", name, s, tm)
				}
				rest = rest[i+j+1:]
			}
		}
	}
	for _, p := range []string{"target", "items", "new", "payment", "reason", "address", "topic"} {
		if len(askPiece[p]) == 0 {
			t.Errorf("no question for piece %s", p)
		}
	}
}
