package model_test

import (
	"strings"
	"testing"

	"github.com/synth-data/synth/model"
)

// TestChoiceSelectorNamesNoID: one of two things of a kind (two gift
// cards) is named by what the customer sees of it, never by an id it
// was never told ("the gift card gift_card_4775542"); the id is the
// last resort, for two that differ in nothing else.
func TestChoiceSelectorNamesNoID(t *testing.T) {
	ch := &model.ChooseModel{From: "payment_methods", ID: "id", By: "source",
		Say: map[string]string{"credit_card": "my {brand|title} card ending in {last_four}", "gift_card": "my gift card"}}
	card := map[string]any{"id": "credit_card_1", "source": "credit_card", "brand": "visa", "last_four": "1234"}
	gift := func(id string, balance float64) map[string]any {
		return map[string]any{"id": id, "source": "gift_card", "balance": balance}
	}
	for _, tc := range []struct {
		name  string
		elems []map[string]any
		i     int
		want  string
		where string
	}{
		{"one gift card", []map[string]any{card, gift("gift_card_1", 50)}, 1, "my gift card", "source"},
		{"a card", []map[string]any{card, gift("gift_card_1", 50)}, 0, "my Visa card ending in 1234", "last_four"},
		{"two gift cards", []map[string]any{card, gift("gift_card_1", 50), gift("gift_card_2", 110.35)}, 2, "my gift card with the $110.35 balance", "balance"},
		{"two alike", []map[string]any{gift("gift_card_1", 50), gift("gift_card_2", 50)}, 1, "the gift card gift_card_2", "id"},
	} {
		sel, err := ch.ChoiceSelector("payment_method_id", tc.elems, tc.i)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if sel.Label != tc.want {
			t.Errorf("%s: label %q, want %q", tc.name, sel.Label, tc.want)
		}
		if _, ok := sel.Where[tc.where]; !ok {
			t.Errorf("%s: where %v lacks %s", tc.name, sel.Where, tc.where)
		}
		if tc.where != "id" && strings.Contains(sel.Label, "_") {
			t.Errorf("%s: label %q holds an id", tc.name, sel.Label)
		}
	}
}
