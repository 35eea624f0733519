package verify

import (
	"strings"
	"testing"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
)

// What a customer says to be identified is taken out of what it said for
// an argument, and nothing else is: a street that holds its last name
// and a passenger named in a sentence of its own still count.
func TestWithoutIdentity(t *testing.T) {
	byID := identity{calls: [][]string{{"rafael_brown_1846"}}, name: "rafael brown"}
	byNameZip := identity{calls: [][]string{{"adams", "ezra", "67252"}}, name: "ezra adams"}
	byEmail := identity{calls: [][]string{{"mia.li@example.com"}}, name: "mia li"}
	cases := []struct {
		name string
		id   identity
		text string
		kept []string // still said
		gone []string // said only as the identity
	}{
		{"introduced, then the user id", byID, "i'm rafael brown. my user id is rafael_brown_1846.", nil, []string{"rafael brown"}},
		{"a passenger in a sentence of its own", byID, "my user id is rafael_brown_1846. the passenger is rafael brown.", []string{"rafael brown"}, nil},
		{"name and zip in one sentence", byNameZip, "my first name is ezra, last name is adams and zip is 67252.", nil, []string{"ezra", "adams", "67252"}},
		{"a street holding the last name", byNameZip, "send it to 1294 adams street, newark, nj 07117.", []string{"1294 adams street"}, nil},
		{"an email's dots end no sentence", byEmail, "this is mia li, email mia.li@example.com. book it for mia li.", []string{"for mia li"}, []string{"this is mia li"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := withoutIdentity(c.text, c.id)
			for _, k := range c.kept {
				if !strings.Contains(got, k) {
					t.Errorf("withoutIdentity(%q) = %q, lost %q", c.text, got, k)
				}
			}
			for _, g := range c.gone {
				if strings.Contains(got, g) {
					t.Errorf("withoutIdentity(%q) = %q, still holds %q", c.text, got, g)
				}
			}
		})
	}
}

// TestNamedAsKeepsResults: namedAs names each picked item from the
// latest result showing it, whether the results are decoded afresh or
// kept from the item before; a result that is not JSON, or is null,
// names nothing.
func TestNamedAsKeepsResults(t *testing.T) {
	pk := &model.PickModel{ID: "item_id", Describe: []string{"name"}}
	msgs := []record.Message{
		{Role: "tool", Content: `{"items":[{"item_id":"1","name":"Old Lamp"},{"item_id":"2","name":"Kettle"}]}`},
		{Role: "user", Content: "item 3"},
		{Role: "tool", Content: `{"items":[{"item_id":"1","name":"Desk Lamp"},{"item_id":"3","name":3}]}`},
		{Role: "tool", Content: `not JSON 1 2 3`},
		{Role: "tool", Content: `null`},
	}
	kept := map[int]any{}
	for _, tc := range []struct{ id, want string }{{"1", "Desk Lamp"}, {"2", "Kettle"}, {"3", ""}, {"1", "Desk Lamp"}, {"4", ""}} {
		for _, results := range []map[int]any{kept, {}} {
			if got := namedAs(msgs, pk, tc.id, results); got != tc.want {
				t.Errorf("item %s named %q, want %q", tc.id, got, tc.want)
			}
		}
	}
}
