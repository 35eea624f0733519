package retail

import (
	"cmp"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/tools"
)

// writeCase is one call of a write tool on a fresh episode.
type writeCase struct {
	name string
	// setup prepares the episode (e.g. a gift card balance) before the call.
	setup   func(t *testing.T, st *tools.State)
	args    map[string]any
	wantErr string // a substring of the error; "" when the call must succeed
	check   func(t *testing.T, st *tools.State, out tools.Result)
}

// runWrites runs each case on its own fresh state and checks the common
// contract: a refused call leaves the state as it was, a successful one
// changes its hash, and the base never changes.
func runWrites(t *testing.T, d *Domain, tool string, cases []writeCase) {
	t.Helper()
	guardBase(t, d)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := d.Base.NewState()
			if c.setup != nil {
				c.setup(t, st)
			}
			before, changed := st.Hash(), st.Changed()
			r := call(t, d, st, tool, c.args)
			if r.Kind != "write" {
				t.Errorf("result kind %q", r.Kind)
			}
			if c.wantErr != "" {
				if !r.Err || !strings.HasPrefix(r.Output, "Error: ") || !strings.Contains(r.Output, c.wantErr) {
					t.Fatalf("got %q, want an error containing %q", r.Output, c.wantErr)
				}
				if st.Hash() != before || st.Changed() != changed {
					t.Error("a refused write changed the state")
				}
				return
			}
			if r.Err {
				t.Fatalf("unexpected error: %s", r.Output)
			}
			if st.Hash() == before {
				t.Error("a successful write left the state hash unchanged")
			}
			if c.check != nil {
				c.check(t, st, r)
			}
		})
	}
}

func stOrder(t *testing.T, st *tools.State, id string) *Order {
	t.Helper()
	o, err := getOrder(st, id)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func stUser(t *testing.T, st *tools.State, id string) *User {
	t.Helper()
	u, err := getUser(st, id)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func stBalance(t *testing.T, st *tools.State, uid, pmID string) float64 {
	t.Helper()
	return balance(stUser(t, st, uid).PaymentMethods[pmID])
}

// setBalance returns a setup that gives a gift card a balance.
func setBalance(uid, pmID string, b float64) func(*testing.T, *tools.State) {
	return func(t *testing.T, st *tools.State) {
		t.Helper()
		u := cloneUser(stUser(t, st, uid))
		u.PaymentMethods[pmID] = withBalance(u.PaymentMethods[pmID], b)
		if err := st.Put(Users, uid, u); err != nil {
			t.Fatal(err)
		}
	}
}

// first returns a setup that runs a successful call.
func first(d *Domain, tool string, args map[string]any) func(*testing.T, *tools.State) {
	return func(t *testing.T, st *tools.State) {
		t.Helper()
		mustCall(t, d, st, tool, args, nil)
	}
}

func paidWith(o *Order) string { return o.PaymentHistory[0].PaymentMethodID }

func isSource(u *User, id, source string) bool { return u.PaymentMethods[id].Source == source }

func pricier(d *Domain, it OrderItem) (Variant, bool) {
	p := d.DB.Products[it.ProductID]
	for _, id := range sortedVariantIDs(d, it.ProductID) {
		if v := p.Variants[id]; v.Available && v.Price > it.Price {
			return v, true
		}
	}
	return Variant{}, false
}

func sortedVariantIDs(d *Domain, pid string) []string {
	return slices.Sorted(maps.Keys(d.DB.Products[pid].Variants))
}

func TestCancelPendingOrder(t *testing.T) {
	d := domain(t)
	byCard := findOrder(t, d, func(o *Order, u *User) bool {
		return o.Status == StatusPending && !isSource(u, paidWith(o), SourceGiftCard) &&
			cmp.Or(methodOf(u, SourceCreditCard, paidWith(o)), methodOf(u, SourcePayPal, paidWith(o))) != ""
	})
	byGift := findOrder(t, d, func(o *Order, u *User) bool {
		return o.Status == StatusPending && isSource(u, paidWith(o), SourceGiftCard)
	})
	processed := findOrder(t, d, func(o *Order, _ *User) bool { return o.Status == StatusProcessed })
	alt, ok := alternative(d, byCard.Items[0])
	if !ok {
		t.Fatal("no alternative item")
	}
	cu := d.DB.Users[byCard.UserID]
	other := cmp.Or(methodOf(cu, SourceCreditCard, paidWith(byCard)), methodOf(cu, SourcePayPal, paidWith(byCard)))
	amount := byCard.PaymentHistory[0].Amount
	giftAmount := byGift.PaymentHistory[0].Amount
	giftBalance := balance(d.DB.Users[byGift.UserID].PaymentMethods[paidWith(byGift)])

	runWrites(t, d, "cancel_pending_order", []writeCase{
		{
			name: "card refund",
			args: map[string]any{"order_id": byCard.OrderID, "reason": ReasonNoLongerNeeded},
			check: func(t *testing.T, st *tools.State, _ tools.Result) {
				o := stOrder(t, st, byCard.OrderID)
				want := []Payment{byCard.PaymentHistory[0], {"refund", amount, paidWith(byCard)}}
				if o.Status != StatusCancelled || o.CancelReason != ReasonNoLongerNeeded || !slices.Equal(o.PaymentHistory, want) {
					t.Errorf("order after cancel: %+v", o)
				}
				if st.Changed() != 1 {
					t.Errorf("%d records changed, want only the order", st.Changed())
				}
			},
		},
		{
			name: "gift card refund is immediate",
			args: map[string]any{"order_id": byGift.OrderID, "reason": ReasonMistake},
			check: func(t *testing.T, st *tools.State, _ tools.Result) {
				if got, want := stBalance(t, st, byGift.UserID, paidWith(byGift)), RoundCents(giftBalance+giftAmount); got != want {
					t.Errorf("gift card balance %.2f, want %.2f", got, want)
				}
			},
		},
		{
			name:  "after a payment change only the new method is refunded",
			setup: first(d, "modify_pending_order_payment", map[string]any{"order_id": byCard.OrderID, "payment_method_id": other}),
			args:  map[string]any{"order_id": byCard.OrderID, "reason": ReasonMistake},
			check: func(t *testing.T, st *tools.State, _ tools.Result) {
				h := stOrder(t, st, byCard.OrderID).PaymentHistory
				if len(h) != 4 || h[3] != (Payment{"refund", amount, other}) {
					t.Errorf("payment history %+v", h)
				}
			},
		},
		{name: "unknown order", args: map[string]any{"order_id": "#W0000000", "reason": ReasonMistake}, wantErr: "order not found"},
		{name: "processed order", args: map[string]any{"order_id": processed.OrderID, "reason": ReasonMistake}, wantErr: "non-pending order cannot be cancelled"},
		{
			name: "items already modified",
			setup: first(d, "modify_pending_order_items", map[string]any{
				"order_id": byCard.OrderID, "item_ids": []string{byCard.Items[0].ItemID},
				"new_item_ids": []string{alt.ItemID}, "payment_method_id": paidWith(byCard),
			}),
			args:    map[string]any{"order_id": byCard.OrderID, "reason": ReasonMistake},
			wantErr: "non-pending order cannot be cancelled",
		},
		{
			name:    "already cancelled",
			setup:   first(d, "cancel_pending_order", map[string]any{"order_id": byCard.OrderID, "reason": ReasonMistake}),
			args:    map[string]any{"order_id": byCard.OrderID, "reason": ReasonMistake},
			wantErr: "non-pending order cannot be cancelled",
		},
	})
}

func TestModifyPendingOrderAddress(t *testing.T) {
	d := domain(t)
	pending := findOrder(t, d, func(o *Order, _ *User) bool { return o.Status == StatusPending })
	delivered := findOrder(t, d, func(o *Order, _ *User) bool { return o.Status == StatusDelivered })
	alt, _ := alternative(d, pending.Items[0])
	addr := func(id string) map[string]any {
		return map[string]any{"order_id": id, "address1": "445 Maple Drive", "address2": "Suite 394", "city": "Fort Worth",
			"state": "TX", "country": "USA", "zip": "76165"}
	}
	want := Address{Address1: "445 Maple Drive", Address2: "Suite 394", City: "Fort Worth", Country: "USA", State: "TX", Zip: "76165"}
	runWrites(t, d, "modify_pending_order_address", []writeCase{
		{
			name: "pending",
			args: addr(pending.OrderID),
			check: func(t *testing.T, st *tools.State, r tools.Result) {
				o := stOrder(t, st, pending.OrderID)
				if o.Address != want || o.Status != StatusPending || !slices.Equal(o.PaymentHistory, pending.PaymentHistory) {
					t.Errorf("order after address change: %+v", o)
				}
				if r.Value.(*Order).Address != want {
					t.Error("the result is not the updated order")
				}
			},
		},
		{
			name: "pending with modified items",
			setup: first(d, "modify_pending_order_items", map[string]any{
				"order_id": pending.OrderID, "item_ids": []string{pending.Items[0].ItemID},
				"new_item_ids": []string{alt.ItemID}, "payment_method_id": paidWith(pending),
			}),
			args: addr(pending.OrderID),
		},
		{name: "delivered", args: addr(delivered.OrderID), wantErr: "non-pending order cannot be modified"},
		{name: "unknown order", args: addr("#W123"), wantErr: "order not found"},
	})
}

func TestModifyPendingOrderItems(t *testing.T) {
	d := domain(t)
	var up Variant
	o := findOrder(t, d, func(o *Order, u *User) bool {
		var ok bool
		up, ok = pricier(d, o.Items[0])
		return ok && o.Status == StatusPending && len(o.Items) >= 2 && methodOf(u, SourceGiftCard) != "" &&
			!isSource(u, paidWith(o), SourceGiftCard)
	})
	it := o.Items[0]
	u := d.DB.Users[o.UserID]
	card, gift := paidWith(o), methodOf(u, SourceGiftCard)
	diff := RoundCents(up.Price - it.Price)
	down := findOrder(t, d, func(o *Order, _ *User) bool { return o.Status == StatusPending && len(o.Items) == 1 })
	var cheaper Variant
	for _, id := range sortedVariantIDs(d, down.Items[0].ProductID) {
		if v := d.DB.Products[down.Items[0].ProductID].Variants[id]; v.Available && v.Price < down.Items[0].Price {
			cheaper = v
			break
		}
	}
	processed := findOrder(t, d, func(o *Order, _ *User) bool { return o.Status == StatusProcessed })
	procAlt, _ := alternative(d, processed.Items[0])
	args := func(ids, newIDs []string, pm string) map[string]any {
		return map[string]any{"order_id": o.OrderID, "item_ids": ids, "new_item_ids": newIDs, "payment_method_id": pm}
	}
	ok := args([]string{it.ItemID}, []string{up.ItemID}, card)
	unavail, hasUnavail := unavailable(d, it)

	cases := []writeCase{
		{
			name: "pay the difference by card",
			args: ok,
			check: func(t *testing.T, st *tools.State, _ tools.Result) {
				got := stOrder(t, st, o.OrderID)
				line := got.Items[0]
				if got.Status != StatusPendingModified || line.ItemID != up.ItemID || line.Price != up.Price ||
					line.Name != it.Name || line.ProductID != it.ProductID || !maps.Equal(line.Options, up.Options) {
					t.Errorf("order after modify: %+v", got)
				}
				if !reflect.DeepEqual(got.Items[1:], o.Items[1:]) {
					t.Error("other items changed")
				}
				if h := got.PaymentHistory; len(h) != 2 || h[1] != (Payment{"payment", diff, card}) {
					t.Errorf("payment history %+v, want a payment of %.2f", h, diff)
				}
				if st.Changed() != 1 {
					t.Error("the user changed although a card paid")
				}
			},
		},
		{
			name:  "pay the difference by gift card",
			setup: setBalance(u.UserID, gift, 5000),
			args:  args([]string{it.ItemID}, []string{up.ItemID}, gift),
			check: func(t *testing.T, st *tools.State, _ tools.Result) {
				if b := stBalance(t, st, u.UserID, gift); b != RoundCents(5000-diff) {
					t.Errorf("gift card balance %.2f, want %.2f", b, RoundCents(5000-diff))
				}
			},
		},
		{name: "gift card too low", setup: setBalance(u.UserID, gift, 0), args: args([]string{it.ItemID}, []string{up.ItemID}, gift), wantErr: "insufficient gift card balance"},
		{name: "only once", setup: first(d, "modify_pending_order_items", ok), args: args([]string{o.Items[1].ItemID}, []string{up.ItemID}, card), wantErr: "can be modified only once"},
		{name: "processed order", args: map[string]any{"order_id": processed.OrderID, "item_ids": []string{processed.Items[0].ItemID}, "new_item_ids": []string{procAlt.ItemID}, "payment_method_id": paidWith(processed)}, wantErr: "non-pending order cannot be modified"},
		{name: "unknown order", args: map[string]any{"order_id": "#W0000001", "item_ids": []string{"1"}, "new_item_ids": []string{"2"}, "payment_method_id": card}, wantErr: "order not found"},
		{name: "length mismatch", args: args([]string{it.ItemID}, []string{up.ItemID, up.ItemID}, card), wantErr: "must match one to one"},
		{name: "duplicate item id", args: args([]string{it.ItemID, it.ItemID}, []string{up.ItemID, up.ItemID}, card), wantErr: "duplicate item id"},
		{name: "item not in order", args: args([]string{up.ItemID}, []string{it.ItemID}, card), wantErr: "not found in order"},
		{name: "other product", args: args([]string{it.ItemID}, []string{otherProductItem(d, o)}, card), wantErr: "is not an item of product"},
		{name: "same item", args: args([]string{it.ItemID}, []string{it.ItemID}, card), wantErr: "is the same as the item it replaces"},
		{name: "not the user's payment method", args: args([]string{it.ItemID}, []string{up.ItemID}, foreignMethod(d, o)), wantErr: "payment method"},
	}
	if hasUnavail {
		cases = append(cases, writeCase{name: "unavailable", args: args([]string{it.ItemID}, []string{unavail.ItemID}, card), wantErr: "is not available"})
	} else {
		t.Error("fixture: no unavailable variant")
	}
	if cheaper.ItemID != "" {
		cases = append(cases, writeCase{
			name: "refund the difference",
			args: map[string]any{"order_id": down.OrderID, "item_ids": []string{down.Items[0].ItemID}, "new_item_ids": []string{cheaper.ItemID}, "payment_method_id": paidWith(down)},
			check: func(t *testing.T, st *tools.State, _ tools.Result) {
				want := Payment{"refund", RoundCents(down.Items[0].Price - cheaper.Price), paidWith(down)}
				if h := stOrder(t, st, down.OrderID).PaymentHistory; len(h) != 2 || h[1] != want {
					t.Errorf("payment history %+v, want %+v", h, want)
				}
			},
		})
	} else {
		t.Error("fixture: no cheaper variant")
	}
	runWrites(t, d, "modify_pending_order_items", cases)
}

func TestModifyPendingOrderPayment(t *testing.T) {
	d := domain(t)
	o := findOrder(t, d, func(o *Order, u *User) bool {
		return o.Status == StatusPending && !isSource(u, paidWith(o), SourceGiftCard) && methodOf(u, SourceGiftCard) != ""
	})
	u := d.DB.Users[o.UserID]
	card, gift := paidWith(o), methodOf(u, SourceGiftCard)
	amount := o.PaymentHistory[0].Amount
	byGift := findOrder(t, d, func(o *Order, u *User) bool {
		return o.Status == StatusPending && isSource(u, paidWith(o), SourceGiftCard) &&
			cmp.Or(methodOf(u, SourceCreditCard), methodOf(u, SourcePayPal)) != ""
	})
	gu := d.DB.Users[byGift.UserID]
	giftOther := cmp.Or(methodOf(gu, SourceCreditCard), methodOf(gu, SourcePayPal))
	delivered := findOrder(t, d, func(o *Order, _ *User) bool { return o.Status == StatusDelivered })
	var up Variant
	var tmOther string // a second card or PayPal account to pay an item change with
	twoMethods := findOrder(t, d, func(o *Order, u *User) bool {
		var ok bool
		up, ok = pricier(d, o.Items[0])
		tmOther = cmp.Or(methodOf(u, SourceCreditCard, paidWith(o)), methodOf(u, SourcePayPal, paidWith(o)))
		return ok && o.Status == StatusPending && tmOther != ""
	})
	args := func(id, pm string) map[string]any { return map[string]any{"order_id": id, "payment_method_id": pm} }

	runWrites(t, d, "modify_pending_order_payment", []writeCase{
		{
			name:  "card to gift card",
			setup: setBalance(u.UserID, gift, 5000),
			args:  args(o.OrderID, gift),
			check: func(t *testing.T, st *tools.State, _ tools.Result) {
				want := []Payment{o.PaymentHistory[0], {"payment", amount, gift}, {"refund", amount, card}}
				if h := stOrder(t, st, o.OrderID).PaymentHistory; !slices.Equal(h, want) {
					t.Errorf("payment history %+v, want %+v", h, want)
				}
				if b := stBalance(t, st, u.UserID, gift); b != RoundCents(5000-amount) {
					t.Errorf("gift card balance %.2f", b)
				}
				if s := stOrder(t, st, o.OrderID).Status; s != StatusPending {
					t.Errorf("status %q", s)
				}
			},
		},
		{
			name: "gift card refunded at once",
			args: args(byGift.OrderID, giftOther),
			check: func(t *testing.T, st *tools.State, _ tools.Result) {
				was := balance(gu.PaymentMethods[paidWith(byGift)])
				if b := stBalance(t, st, gu.UserID, paidWith(byGift)); b != RoundCents(was+byGift.PaymentHistory[0].Amount) {
					t.Errorf("old gift card balance %.2f, was %.2f", b, was)
				}
			},
		},
		{
			name:  "back to the first method",
			setup: setBalance(u.UserID, gift, 5000),
			args:  args(o.OrderID, gift),
			check: func(t *testing.T, st *tools.State, _ tools.Result) {
				mustCall(t, d, st, "modify_pending_order_payment", args(o.OrderID, card), nil)
				if b := stBalance(t, st, u.UserID, gift); b != 5000 {
					t.Errorf("gift card balance %.2f after paying and being refunded", b)
				}
			},
		},
		{name: "same method", args: args(o.OrderID, card), wantErr: "must differ from the current one"},
		{name: "gift card too low", setup: setBalance(u.UserID, gift, RoundCents(amount-0.01)), args: args(o.OrderID, gift), wantErr: "insufficient gift card balance"},
		{name: "delivered", args: args(delivered.OrderID, paidWith(delivered)), wantErr: "non-pending order cannot be modified"},
		{name: "not the user's method", args: args(o.OrderID, foreignMethod(d, o)), wantErr: "payment method"},
		{name: "unknown order", args: args("#W9", card), wantErr: "order not found"},
		{
			name: "paid by two methods after an item change",
			setup: first(d, "modify_pending_order_items", map[string]any{
				"order_id": twoMethods.OrderID, "item_ids": []string{twoMethods.Items[0].ItemID},
				"new_item_ids": []string{up.ItemID}, "payment_method_id": tmOther,
			}),
			args:    args(twoMethods.OrderID, tmOther),
			wantErr: "exactly one payment method",
		},
	})
}

func TestModifyUserAddress(t *testing.T) {
	d := domain(t)
	u := d.DB.Users[d.DB.UserIDs[3]]
	args := func(uid string) map[string]any {
		return map[string]any{"user_id": uid, "address1": " 12 Oak Avenue ", "address2": "", "city": "Boise",
			"state": "ID", "country": "USA", "zip": "83702"}
	}
	runWrites(t, d, "modify_user_address", []writeCase{
		{
			name: "ok",
			args: args(u.UserID),
			check: func(t *testing.T, st *tools.State, _ tools.Result) {
				got := stUser(t, st, u.UserID)
				want := Address{Address1: "12 Oak Avenue", City: "Boise", Country: "USA", State: "ID", Zip: "83702"}
				if got.Address != want || got.Email != u.Email || !slices.Equal(got.Orders, u.Orders) {
					t.Errorf("user after address change: %+v", got)
				}
				if o := stOrder(t, st, u.Orders[0]); o.Address == want {
					t.Error("an existing order's address changed too")
				}
			},
		},
		{name: "unknown user", args: args("nobody_here_0000"), wantErr: "user not found"},
	})
}

func TestReturnDeliveredOrderItems(t *testing.T) {
	d := domain(t)
	o := findOrder(t, d, func(o *Order, u *User) bool {
		return o.Status == StatusDelivered && len(o.Items) >= 3 && !isSource(u, paidWith(o), SourceGiftCard) &&
			methodOf(u, SourceGiftCard) != "" && cmp.Or(methodOf(u, SourceCreditCard, paidWith(o)), methodOf(u, SourcePayPal, paidWith(o))) != ""
	})
	u := d.DB.Users[o.UserID]
	orig, gift := paidWith(o), methodOf(u, SourceGiftCard)
	other := cmp.Or(methodOf(u, SourceCreditCard, orig), methodOf(u, SourcePayPal, orig))
	pending := findOrder(t, d, func(o *Order, _ *User) bool { return o.Status == StatusPending })
	ids := []string{o.Items[2].ItemID, o.Items[0].ItemID}
	args := func(id string, items []string, pm string) map[string]any {
		return map[string]any{"order_id": id, "item_ids": items, "payment_method_id": pm}
	}
	runWrites(t, d, "return_delivered_order_items", []writeCase{
		{
			name: "to the original method",
			args: args(o.OrderID, ids, orig),
			check: func(t *testing.T, st *tools.State, _ tools.Result) {
				got := stOrder(t, st, o.OrderID)
				if got.Status != StatusReturnRequested || got.RefundMethodID != orig ||
					!slices.Equal(got.ReturnItems, slices.Sorted(slices.Values(ids))) || !reflect.DeepEqual(got.Items, o.Items) {
					t.Errorf("order after return: %+v", got)
				}
			},
		},
		{name: "to a gift card", args: args(o.OrderID, ids, gift)},
		{name: "to another card", args: args(o.OrderID, ids, other), wantErr: "original payment method"},
		{name: "not the user's method", args: args(o.OrderID, ids, foreignMethod(d, o)), wantErr: "payment method"},
		{name: "pending order", args: args(pending.OrderID, []string{pending.Items[0].ItemID}, paidWith(pending)), wantErr: "non-delivered order cannot be returned"},
		{name: "already returned", setup: first(d, "return_delivered_order_items", args(o.OrderID, ids, orig)), args: args(o.OrderID, ids, orig), wantErr: "non-delivered order cannot be returned"},
		{name: "item not in order", args: args(o.OrderID, []string{pending.Items[0].ItemID}, orig), wantErr: "not found in order"},
		{name: "duplicate item id", args: args(o.OrderID, []string{ids[0], ids[0]}, orig), wantErr: "duplicate item id"},
		{name: "unknown order", args: args("#W0000000", ids, orig), wantErr: "order not found"},
	})
}

func TestExchangeDeliveredOrderItems(t *testing.T) {
	d := domain(t)
	var up Variant
	o := findOrder(t, d, func(o *Order, u *User) bool {
		var ok bool
		up, ok = pricier(d, o.Items[0])
		_, hasUnavail := unavailable(d, o.Items[0])
		return ok && hasUnavail && o.Status == StatusDelivered && len(o.Items) >= 2 && methodOf(u, SourceGiftCard) != ""
	})
	u := d.DB.Users[o.UserID]
	it := o.Items[0]
	alt2, _ := alternative(d, o.Items[1])
	unavail, _ := unavailable(d, it)
	pm, gift := paidWith(o), methodOf(u, SourceGiftCard)
	pending := findOrder(t, d, func(o *Order, _ *User) bool { return o.Status == StatusPending })
	pendAlt, _ := alternative(d, pending.Items[0])
	args := func(id string, ids, newIDs []string, pm string) map[string]any {
		return map[string]any{"order_id": id, "item_ids": ids, "new_item_ids": newIDs, "payment_method_id": pm}
	}
	both := args(o.OrderID, []string{it.ItemID, o.Items[1].ItemID}, []string{up.ItemID, alt2.ItemID}, pm)
	diff := RoundCents(up.Price - it.Price + alt2.Price - o.Items[1].Price)
	runWrites(t, d, "exchange_delivered_order_items", []writeCase{
		{
			name: "two items",
			args: both,
			check: func(t *testing.T, st *tools.State, _ tools.Result) {
				got := stOrder(t, st, o.OrderID)
				if got.Status != StatusExchangeRequested || got.ExchangePriceDiff == nil || *got.ExchangePriceDiff != diff ||
					got.ExchangePaymentMethodID != pm ||
					!slices.Equal(got.ExchangeItems, slices.Sorted(slices.Values([]string{it.ItemID, o.Items[1].ItemID}))) ||
					!slices.Equal(got.ExchangeNewItems, slices.Sorted(slices.Values([]string{up.ItemID, alt2.ItemID}))) ||
					!reflect.DeepEqual(got.Items, o.Items) {
					t.Errorf("order after exchange: %+v", got)
				}
				if st.Changed() != 1 {
					t.Error("an exchange request changed more than the order")
				}
			},
		},
		{name: "gift card covers the difference", setup: setBalance(u.UserID, gift, 5000), args: args(o.OrderID, []string{it.ItemID}, []string{up.ItemID}, gift)},
		{name: "gift card too low", setup: setBalance(u.UserID, gift, 0), args: args(o.OrderID, []string{it.ItemID}, []string{up.ItemID}, gift), wantErr: "insufficient gift card balance"},
		{name: "only once", setup: first(d, "exchange_delivered_order_items", both), args: both, wantErr: "non-delivered order cannot be exchanged"},
		{name: "pending order", args: args(pending.OrderID, []string{pending.Items[0].ItemID}, []string{pendAlt.ItemID}, paidWith(pending)), wantErr: "non-delivered order cannot be exchanged"},
		{name: "length mismatch", args: args(o.OrderID, []string{it.ItemID, o.Items[1].ItemID}, []string{up.ItemID}, pm), wantErr: "must match one to one"},
		{name: "other product", args: args(o.OrderID, []string{it.ItemID}, []string{otherProductItem(d, o)}, pm), wantErr: "is not an item of product"},
		{name: "unavailable", args: args(o.OrderID, []string{it.ItemID}, []string{unavail.ItemID}, pm), wantErr: "is not available"},
		{name: "same item", args: args(o.OrderID, []string{it.ItemID}, []string{it.ItemID}, pm), wantErr: "is the same as the item it replaces"},
		{name: "duplicate item id", args: args(o.OrderID, []string{it.ItemID, it.ItemID}, []string{up.ItemID, up.ItemID}, pm), wantErr: "duplicate item id"},
		{name: "item not in order", args: args(o.OrderID, []string{pending.Items[0].ItemID}, []string{pendAlt.ItemID}, pm), wantErr: "not found in order"},
		{name: "not the user's method", args: args(o.OrderID, []string{it.ItemID}, []string{up.ItemID}, foreignMethod(d, o)), wantErr: "payment method"},
		{name: "unknown order", args: args("#W0", []string{it.ItemID}, []string{up.ItemID}, pm), wantErr: "order not found"},
	})
}

// Replaying the same writes on fresh states reaches the same hash whatever
// the order of independent writes: what the verifier relies on.
func TestReplayHash(t *testing.T) {
	d := domain(t)
	guardBase(t, d)
	p := findOrder(t, d, func(o *Order, _ *User) bool { return o.Status == StatusPending })
	q := findOrder(t, d, func(o *Order, _ *User) bool { return o.Status == StatusDelivered })
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"cancel_pending_order", map[string]any{"order_id": p.OrderID, "reason": ReasonMistake}},
		{"return_delivered_order_items", map[string]any{"order_id": q.OrderID, "item_ids": []string{q.Items[0].ItemID}, "payment_method_id": paidWith(q)}},
	}
	a, b := d.Base.NewState(), d.Base.NewState()
	for i := range calls {
		mustCall(t, d, a, calls[i].tool, calls[i].args, nil)
		j := len(calls) - 1 - i
		mustCall(t, d, b, calls[j].tool, calls[j].args, nil)
	}
	if a.Hash() != b.Hash() || a.Hash() == d.Base.Hash() {
		t.Error("replays in a different order disagree, or did not change the state")
	}
}
