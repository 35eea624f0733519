package model

import "testing"

// TestMoneyEntry: the record a write makes for the money it moves with
// the customer's method is the new one that names the method, and it
// says a refund by its words or by holding the figure negative.
func TestMoneyEntry(t *testing.T) {
	before := map[string]any{"order_id": "#W1", "payment_history": []any{
		map[string]any{"transaction_type": "payment", "amount": 100.0, "payment_method_id": "card_1"},
	}}
	for _, tc := range []struct {
		name   string
		after  any
		id     string
		figure any
		found  bool
		refund bool
	}{
		{"a refund entry", map[string]any{"order_id": "#W1", "payment_history": []any{
			map[string]any{"transaction_type": "payment", "amount": 100.0, "payment_method_id": "card_1"},
			map[string]any{"transaction_type": "refund", "amount": 11.07, "payment_method_id": "card_1"},
		}}, "card_1", 11.07, true, true},
		{"a payment entry", map[string]any{"order_id": "#W1", "payment_history": []any{
			map[string]any{"transaction_type": "payment", "amount": 100.0, "payment_method_id": "card_1"},
			map[string]any{"transaction_type": "payment", "amount": 11.07, "payment_method_id": "card_1"},
		}}, "card_1", 11.07, true, false},
		{"the figure held negative", map[string]any{"order_id": "#W1", "exchange_payment_method_id": "card_2", "exchange_price_difference": -6.78},
			"card_2", 6.78, true, true},
		{"the figure held positive", map[string]any{"order_id": "#W1", "exchange_payment_method_id": "card_2", "exchange_price_difference": 6.78},
			"card_2", 6.78, true, false},
		{"only the entry that was there", before, "card_1", 100.0, false, false},
		{"another method", map[string]any{"payment_history": []any{map[string]any{"transaction_type": "refund", "amount": 5.0, "payment_method_id": "card_9"}}},
			"card_1", 5.0, false, false},
	} {
		e := MoneyEntry(before, tc.after, tc.id)
		if (e != nil) != tc.found {
			t.Errorf("%s: entry %v, want found %v", tc.name, e, tc.found)
			continue
		}
		if e == nil {
			continue
		}
		if got := isRefund(e) || holdsNegative(e, tc.figure); got != tc.refund {
			t.Errorf("%s: refund %v, want %v (%v)", tc.name, got, tc.refund, e)
		}
	}
}

// TestGoesBack: a figure is money back to the customer when it is
// negative, named a refund, or the entry the write makes on the chosen
// method says so; else, for money, the customer pays it.
func TestGoesBack(t *testing.T) {
	pm := &ParamModel{Name: "payment_method_id", Source: SrcChoose, Choose: &ChooseModel{From: "payment_methods", ID: "id"}}
	w := &WriteModel{Name: "modify", Params: []*ParamModel{pm}}
	before := map[string]any{"payment_history": []any{
		map[string]any{"transaction_type": "payment", "amount": 100.0, "payment_method_id": "card_1"},
	}}
	entry := func(kind string, amount float64) any {
		return map[string]any{"payment_history": []any{
			map[string]any{"transaction_type": "payment", "amount": 100.0, "payment_method_id": "card_1"},
			map[string]any{"transaction_type": kind, "amount": amount, "payment_method_id": "card_1"},
		}}
	}
	args := map[string]any{"payment_method_id": "card_1"}
	for _, tc := range []struct {
		name   string
		after  any
		args   map[string]any
		figure string
		raw    any
		back   bool
		via    bool
	}{
		{"a payment entry", entry("payment", 12), args, "price_difference", 12.0, false, true},
		{"a refund entry", entry("refund", 12), args, "price_difference", 12.0, true, true},
		{"a negative amount", nil, nil, "price_difference", -12.0, true, false},
		{"named a refund", nil, nil, "refund", 12.0, true, false},
		{"a fee", nil, nil, "baggage_fee", 50.0, false, false},
		{"the figure held negative", map[string]any{"exchange_payment_method_id": "card_1", "exchange_price_difference": -12.0}, args, "price_difference", 12.0, true, true},
	} {
		back, via := w.GoesBack(before, tc.after, tc.args, tc.figure, tc.raw)
		if back != tc.back || (via != nil) != tc.via {
			t.Errorf("%s: back %v via %v, want %v %v", tc.name, back, via != nil, tc.back, tc.via)
		}
	}
}
