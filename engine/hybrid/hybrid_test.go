package hybrid

import (
	"reflect"
	"strings"
	"testing"

	"github.com/synth-data/synth/record"
)

func TestEntities(t *testing.T) {
	bp := &record.Blueprint{Persona: record.Persona{Name: "Mia Li", Known: map[string]string{"email": "mia.li@example.com", "zip": "80218"}},
		Goals: []record.Goal{{Target: record.Selector{Where: map[string]string{"status": "pending", "color": "navy"}},
			Items:        []record.Selector{{Where: map[string]string{"name": "Wireless Earbuds"}}},
			Slots:        map[string]string{"reason": "no longer needed", "address1": "12 Elm St"},
			FailingItems: []record.Selector{{Where: map[string]string{"source": "gift_card", "brand": "Quokka"}}}}}}
	values := blueprintValues(bp)
	cases := []struct {
		line string
		want []string
	}{
		{"Hi, I'm Mia Li and my email is mia.li@example.com.", []string{"Mia Li", "mia.li@example.com"}},
		{"Order #W1234567 is pending; the refund of $1,234.50 goes back.", []string{"#W1234567", "pending", "$1,234.50"}},
		{"Cancel it, it's no longer needed.", []string{"no longer needed"}},
		{"Ship it to 12 Elm St, zip 80218 please", []string{"12 Elm St", "80218"}},
		{"It was placed on 2024-05-01 at 10:22:00.", []string{"2024-05-01", "10:22:00"}},
		{"Pending items in the navyblue bag", nil},
		{"Return the black wireless earbuds, please.", []string{"wireless earbuds"}},
		{"pay with gift_card_7 or credit_card_12", []string{"gift_card_7", "credit_card_12"}},
		{"Let's try my Quokka card first.", []string{"Quokka"}},
	}
	for _, tc := range cases {
		if got := Entities(tc.line, values); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Entities(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestAcceptRewrite(t *testing.T) {
	cases := []struct {
		speaker, orig, rewrite string
		ents                   []string
		want                   bool
	}{
		{"user", "Yes, go ahead.", "Yep, please go ahead with it.", nil, true},
		{"user", "Yes, go ahead.", "Hmm, wait, go ahead.", nil, false},
		{"user", "Cancel #W1.", "Please cancel #W1 for me.", []string{"#W1"}, true},
		{"user", "Cancel #W1.", "Please cancel it for me.", []string{"#W1"}, false},
		{"assistant", "Refund $3.20.", "You'll get $3.20 back.", []string{"$3.20"}, true},
		{"assistant", "You'll be charged $5 more.", "The difference is $5.", []string{"$5"}, false},
		{"assistant", "You'll be refunded $5.", "The difference is $5.", []string{"$5"}, false},
		{"assistant", "You'll be charged $5 more.", "You'll pay an extra $5.", []string{"$5"}, true},
		{"assistant", "Is there more I can do?", "Anything else?", nil, true},
		{"assistant", "Bye.", "", nil, false},
		{"user", "Thanks.", "Thanks ###STOP###", nil, false},
	}
	for _, tc := range cases {
		if got := acceptRewrite(tc.speaker, tc.orig, tc.rewrite, tc.ents); got != tc.want {
			t.Errorf("acceptRewrite(%q, %q, %q) = %v", tc.orig, tc.rewrite, tc.ents, got)
		}
	}
}

func FuzzEntities(f *testing.F) {
	for _, s := range []string{"Order #W1 costs $3.50", "mia@x.io, 2024-01-02 10:00", "", "$", "@@..", "Mia Li pending"} {
		f.Add(s)
	}
	values := []string{"Mia Li", "pending", "12 Elm St", "$"}
	f.Fuzz(func(t *testing.T, line string) {
		for _, e := range Entities(line, values) {
			if e == "" || !strings.Contains(line, e) {
				t.Fatalf("Entities(%q) gave %q, not in the line", line, e)
			}
		}
	})
}
