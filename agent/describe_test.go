package agent

import (
	"testing"

	"github.com/synth-data/synth/model"
)

// TestDescribe: a found record is told in the pack's words; with none
// left but its time it is "It was created …", with only plain fields
// each is stated ("Its price is $406.27."), never "It's a special event,
// price $406.27".
func TestDescribe(t *testing.T) {
	a := &Generic{}
	for _, tc := range []struct {
		name string
		c    *model.CollModel
		obj  map[string]any
		want string
	}{
		{"time only", &model.CollModel{Noun: "order", Compare: []string{"created_at"}},
			map[string]any{"created_at": "2024-04-28T01:33:00"}, "It was created April 28, 2024 at 1:33 AM."},
		{"plain fields", &model.CollModel{Noun: "special event", Describe: []string{"location"}, Compare: []string{"price"}},
			map[string]any{"price": 406.27, "location": "Ember Room"}, "Its location is Ember Room and its price is $406.27."},
		{"a stored word", &model.CollModel{Noun: "reservation", Describe: []string{"flight_type"}},
			map[string]any{"flight_type": "one_way"}, "Its flight type is one way."},
		{"the pack's words", &model.CollModel{Noun: "reservation", Describe: []string{"cabin"}, Say: map[string]string{"cabin": "in {value|words}"}},
			map[string]any{"cabin": "basic_economy"}, "It's a reservation in basic economy."},
	} {
		if got := a.describe(tc.c, tc.obj); got != tc.want {
			t.Errorf("%s: describe = %q, want %q", tc.name, got, tc.want)
		}
	}
}
