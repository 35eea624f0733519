package agent

import (
	"testing"

	"github.com/synth-data/synth/model"
)

// The agent lists a slot's values after its question only when the
// tool's schema gives them; an imported create's free ids or
// pattern-drawn values get an open question (review 2, N3).
func TestOfferedSlotChoices(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *model.ParamModel
		want bool
	}{
		{"enum", &model.ParamModel{Schema: map[string]any{"enum": []any{"economy", "business"}}, Choices: []string{"economy", "business"}}, true},
		{"named in the description", &model.ParamModel{Schema: map[string]any{"type": "string", "description": "either 'no longer needed' or 'ordered by mistake'"}, Choices: []string{"no longer needed", "ordered by mistake"}}, true},
		{"free keys of a create", &model.ParamModel{Schema: map[string]any{"type": "string"}, Choices: []string{"67j4q0uoteqm", "fuia29lvkwv4", "goa247zpaiv4"}}, false},
		{"pattern-drawn ids", &model.ParamModel{Schema: map[string]any{"type": "string", "pattern": "^(0|[1-9][0-9]*)$"}, Choices: []string{"0", "8524", "4"}}, false},
		{"one choice", &model.ParamModel{Schema: map[string]any{"enum": []any{2}}, Choices: []string{"2"}}, false},
		{"some not given", &model.ParamModel{Schema: map[string]any{"enum": []any{"a"}}, Choices: []string{"a", "b"}}, false},
		{"none", nil, false},
	} {
		if got := offered(tc.p); got != tc.want {
			t.Errorf("%s: offered = %v, want %v", tc.name, got, tc.want)
		}
	}
}
