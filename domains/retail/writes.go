package retail

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/synth-data/synth/tools"
)

// Write handlers check every invariant before the first Put, so a refused
// call leaves the state untouched. Records from the state are shared with
// the immutable base: a handler copies what it changes and puts the copy.

// cloneOrder copies an order deeply enough to change its items and append
// to its payment history; other slices are only ever replaced wholesale.
func cloneOrder(o *Order) *Order {
	c := *o
	c.Items = slices.Clone(o.Items)
	c.PaymentHistory = slices.Clone(o.PaymentHistory)
	return &c
}

// cloneUser copies a user deeply enough to replace payment methods.
func cloneUser(u *User) *User {
	c := *u
	c.PaymentMethods = maps.Clone(u.PaymentMethods)
	return &c
}

func balance(pm PaymentMethod) float64 {
	if pm.Balance == nil {
		return 0
	}
	return *pm.Balance
}

// withBalance returns pm with a new balance; the old pointer is shared
// with the base and must not be written through.
func withBalance(pm PaymentMethod, b float64) PaymentMethod {
	b = RoundCents(b)
	pm.Balance = &b
	return pm
}

func paymentMethod(u *User, id string) (PaymentMethod, error) {
	pm, ok := u.PaymentMethods[id]
	if !ok {
		return PaymentMethod{}, fmt.Errorf("payment method %s not found for user %s", id, u.UserID)
	}
	return pm, nil
}

func isPending(o *Order) bool {
	return o.Status == StatusPending || o.Status == StatusPendingModified
}

// paid is what one payment method has paid for an order, net of refunds.
type paid struct {
	method string
	amount float64
}

// netPaid returns the methods with a positive net payment, in order of
// first appearance. Working from net amounts (rather than refunding every
// history entry, as tau2 does) keeps a cancel after a payment change from
// refunding money twice.
func netPaid(o *Order) []paid {
	var out []paid
	for _, p := range o.PaymentHistory {
		i := slices.IndexFunc(out, func(x paid) bool { return x.method == p.PaymentMethodID })
		if i < 0 {
			out = append(out, paid{method: p.PaymentMethodID})
			i = len(out) - 1
		}
		if p.TransactionType == "refund" {
			out[i].amount -= p.Amount
		} else {
			out[i].amount += p.Amount
		}
	}
	for i := range out {
		out[i].amount = RoundCents(out[i].amount)
	}
	return slices.DeleteFunc(out, func(x paid) bool { return x.amount <= 0 })
}

// originalMethod is the payment method the order was first paid with.
func originalMethod(o *Order) string {
	for _, p := range o.PaymentHistory {
		if p.TransactionType == "payment" {
			return p.PaymentMethodID
		}
	}
	return ""
}

// matchItems maps each requested item id to a distinct line of the order.
// An id may appear as often as the order holds it, no more.
func matchItems(o *Order, ids []string) ([]int, error) {
	used := make([]bool, len(o.Items))
	lines := make([]int, len(ids))
	for i, id := range ids {
		line := -1
		found := false
		for j, it := range o.Items {
			if it.ItemID != id {
				continue
			}
			found = true
			if !used[j] {
				line = j
				break
			}
		}
		switch {
		case !found:
			return nil, fmt.Errorf("item %s not found in order %s", id, o.OrderID)
		case line < 0:
			return nil, fmt.Errorf("duplicate item id %s: it is listed more times than order %s contains it", id, o.OrderID)
		}
		used[line] = true
		lines[i] = line
	}
	return lines, nil
}

// replacements validates a one-to-one replacement of order items by other
// variants of the same products and returns the order lines, the new
// variants and the price difference (new minus old, rounded to cents).
func replacements(st *tools.State, o *Order, ids, newIDs []string) ([]int, []Variant, float64, error) {
	if len(ids) != len(newIDs) {
		return nil, nil, 0, fmt.Errorf("item_ids and new_item_ids must match one to one, got %d and %d ids", len(ids), len(newIDs))
	}
	lines, err := matchItems(o, ids)
	if err != nil {
		return nil, nil, 0, err
	}
	vs := make([]Variant, len(lines))
	diff := 0.0
	for i, line := range lines {
		old := o.Items[line]
		if newIDs[i] == old.ItemID {
			return nil, nil, 0, fmt.Errorf("new item %s is the same as the item it replaces", newIDs[i])
		}
		p, err := getProduct(st, old.ProductID)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("product %s of item %s: %w", old.ProductID, old.ItemID, err)
		}
		v, ok := p.Variants[newIDs[i]]
		if !ok {
			return nil, nil, 0, fmt.Errorf("new item %s is not an item of product %s (%s), the product of item %s", newIDs[i], p.Name, p.ProductID, old.ItemID)
		}
		if !v.Available {
			return nil, nil, 0, fmt.Errorf("new item %s is not available", newIDs[i])
		}
		vs[i] = v
		diff += v.Price - old.Price
	}
	return lines, vs, RoundCents(diff), nil
}

// putAll stores records in order, stopping at the first failure.
func putAll(st *tools.State, recs ...any) error {
	for _, r := range recs {
		var err error
		switch r := r.(type) {
		case *User:
			err = st.Put(Users, r.UserID, r)
		case *Order:
			err = st.Put(Orders, r.OrderID, r)
		default:
			err = fmt.Errorf("cannot store a %T", r)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func addressArg(args map[string]any) Address {
	f := func(k string) string { return strings.TrimSpace(strArg(args, k)) }
	return Address{
		Address1: f("address1"),
		Address2: f("address2"),
		City:     f("city"),
		Country:  f("country"),
		State:    f("state"),
		Zip:      f("zip"),
	}
}

func cancelPendingOrder(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	o, err := getOrder(st, strArg(args, "order_id"))
	if err != nil {
		return nil, err
	}
	if o.Status != StatusPending {
		return nil, fmt.Errorf("non-pending order cannot be cancelled: order %s is %q", o.OrderID, o.Status)
	}
	reason := strArg(args, "reason")
	if reason != ReasonNoLongerNeeded && reason != ReasonMistake {
		return nil, fmt.Errorf("invalid reason %q: use %q or %q", reason, ReasonNoLongerNeeded, ReasonMistake)
	}
	u, err := getUser(st, o.UserID)
	if err != nil {
		return nil, fmt.Errorf("owner %s of order %s: %w", o.UserID, o.OrderID, err)
	}
	nu, no := cloneUser(u), cloneOrder(o)
	giftRefund := false
	for _, p := range netPaid(o) {
		pm, err := paymentMethod(nu, p.method)
		if err != nil {
			return nil, err
		}
		no.PaymentHistory = append(no.PaymentHistory, Payment{TransactionType: "refund", Amount: RoundCents(p.amount), PaymentMethodID: p.method})
		if pm.Source == SourceGiftCard { // gift card refunds are immediate
			nu.PaymentMethods[p.method] = withBalance(pm, balance(pm)+p.amount)
			giftRefund = true
		}
	}
	no.Status = StatusCancelled
	no.CancelReason = reason
	recs := []any{no}
	if giftRefund {
		recs = append(recs, nu)
	}
	if err := putAll(st, recs...); err != nil {
		return nil, err
	}
	return no, nil
}

func modifyPendingOrderAddress(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	o, err := getOrder(st, strArg(args, "order_id"))
	if err != nil {
		return nil, err
	}
	if !isPending(o) {
		return nil, fmt.Errorf("non-pending order cannot be modified: order %s is %q", o.OrderID, o.Status)
	}
	no := *o // only the address changes; the slices stay shared
	no.Address = addressArg(args)
	if err := putAll(st, &no); err != nil {
		return nil, err
	}
	return &no, nil
}

func modifyPendingOrderItems(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	o, err := getOrder(st, strArg(args, "order_id"))
	if err != nil {
		return nil, err
	}
	switch o.Status {
	case StatusPending:
	case StatusPendingModified:
		return nil, fmt.Errorf("the items of order %s have already been modified; they can be modified only once", o.OrderID)
	default:
		return nil, fmt.Errorf("non-pending order cannot be modified: order %s is %q", o.OrderID, o.Status)
	}
	lines, vs, diff, err := replacements(st, o, strsArg(args, "item_ids"), strsArg(args, "new_item_ids"))
	if err != nil {
		return nil, err
	}
	u, err := getUser(st, o.UserID)
	if err != nil {
		return nil, fmt.Errorf("owner %s of order %s: %w", o.UserID, o.OrderID, err)
	}
	pmID := strArg(args, "payment_method_id")
	pm, err := paymentMethod(u, pmID)
	if err != nil {
		return nil, err
	}
	gift := pm.Source == SourceGiftCard
	if gift && balance(pm) < diff {
		return nil, fmt.Errorf("insufficient gift card balance (%.2f) to pay the price difference of %.2f", balance(pm), diff)
	}
	no := cloneOrder(o)
	for i, line := range lines {
		it := no.Items[line]
		it.ItemID = vs[i].ItemID
		it.Price = vs[i].Price
		it.Options = maps.Clone(vs[i].Options)
		no.Items[line] = it
	}
	no.Status = StatusPendingModified
	recs := []any{no}
	if diff != 0 {
		tt := "payment"
		if diff < 0 {
			tt = "refund"
		}
		no.PaymentHistory = append(no.PaymentHistory, Payment{TransactionType: tt, Amount: RoundCents(max(diff, -diff)), PaymentMethodID: pmID})
		if gift {
			nu := cloneUser(u)
			nu.PaymentMethods[pmID] = withBalance(pm, balance(pm)-diff)
			recs = append(recs, nu)
		}
	}
	if err := putAll(st, recs...); err != nil {
		return nil, err
	}
	return no, nil
}

func modifyPendingOrderPayment(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	o, err := getOrder(st, strArg(args, "order_id"))
	if err != nil {
		return nil, err
	}
	if !isPending(o) {
		return nil, fmt.Errorf("non-pending order cannot be modified: order %s is %q", o.OrderID, o.Status)
	}
	u, err := getUser(st, o.UserID)
	if err != nil {
		return nil, fmt.Errorf("owner %s of order %s: %w", o.UserID, o.OrderID, err)
	}
	pmID := strArg(args, "payment_method_id")
	pm, err := paymentMethod(u, pmID)
	if err != nil {
		return nil, err
	}
	net := netPaid(o)
	if len(net) != 1 {
		return nil, errors.New("the payment method can be changed only for an order paid with exactly one payment method")
	}
	cur := net[0]
	if cur.method == pmID {
		return nil, fmt.Errorf("the new payment method must differ from the current one (%s)", cur.method)
	}
	amount := RoundCents(cur.amount)
	if pm.Source == SourceGiftCard && balance(pm) < amount {
		return nil, fmt.Errorf("insufficient gift card balance (%.2f) to pay for the order (%.2f)", balance(pm), amount)
	}
	no, nu := cloneOrder(o), cloneUser(u)
	no.PaymentHistory = append(no.PaymentHistory,
		Payment{TransactionType: "payment", Amount: amount, PaymentMethodID: pmID},
		Payment{TransactionType: "refund", Amount: amount, PaymentMethodID: cur.method},
	)
	userChanged := false
	if pm.Source == SourceGiftCard {
		nu.PaymentMethods[pmID] = withBalance(pm, balance(pm)-amount)
		userChanged = true
	}
	if old, ok := nu.PaymentMethods[cur.method]; ok && old.Source == SourceGiftCard {
		nu.PaymentMethods[cur.method] = withBalance(old, balance(old)+amount)
		userChanged = true
	}
	recs := []any{no}
	if userChanged {
		recs = append(recs, nu)
	}
	if err := putAll(st, recs...); err != nil {
		return nil, err
	}
	return no, nil
}

func modifyUserAddress(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	u, err := getUser(st, strArg(args, "user_id"))
	if err != nil {
		return nil, err
	}
	nu := *u // only the address changes; the map and slice stay shared
	nu.Address = addressArg(args)
	if err := putAll(st, &nu); err != nil {
		return nil, err
	}
	return &nu, nil
}

func returnDeliveredOrderItems(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	o, err := getOrder(st, strArg(args, "order_id"))
	if err != nil {
		return nil, err
	}
	if o.Status != StatusDelivered {
		return nil, fmt.Errorf("non-delivered order cannot be returned: order %s is %q", o.OrderID, o.Status)
	}
	ids := strsArg(args, "item_ids")
	if _, err := matchItems(o, ids); err != nil {
		return nil, err
	}
	u, err := getUser(st, o.UserID)
	if err != nil {
		return nil, fmt.Errorf("owner %s of order %s: %w", o.UserID, o.OrderID, err)
	}
	pmID := strArg(args, "payment_method_id")
	pm, err := paymentMethod(u, pmID)
	if err != nil {
		return nil, err
	}
	if orig := originalMethod(o); pm.Source != SourceGiftCard && pmID != orig {
		return nil, fmt.Errorf("the refund must go to the original payment method (%s) or a gift card", orig)
	}
	no := *o // the changed fields are replaced, not appended to
	no.Status = StatusReturnRequested
	no.ReturnItems = slices.Sorted(slices.Values(ids))
	no.RefundMethodID = pmID
	if err := putAll(st, &no); err != nil {
		return nil, err
	}
	return &no, nil
}

func exchangeDeliveredOrderItems(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	o, err := getOrder(st, strArg(args, "order_id"))
	if err != nil {
		return nil, err
	}
	if o.Status != StatusDelivered {
		return nil, fmt.Errorf("non-delivered order cannot be exchanged: order %s is %q", o.OrderID, o.Status)
	}
	ids, newIDs := strsArg(args, "item_ids"), strsArg(args, "new_item_ids")
	_, _, diff, err := replacements(st, o, ids, newIDs)
	if err != nil {
		return nil, err
	}
	u, err := getUser(st, o.UserID)
	if err != nil {
		return nil, fmt.Errorf("owner %s of order %s: %w", o.UserID, o.OrderID, err)
	}
	pmID := strArg(args, "payment_method_id")
	pm, err := paymentMethod(u, pmID)
	if err != nil {
		return nil, err
	}
	if pm.Source == SourceGiftCard && balance(pm) < diff {
		return nil, fmt.Errorf("insufficient gift card balance (%.2f) to pay the price difference of %.2f", balance(pm), diff)
	}
	no := *o // the changed fields are replaced, not appended to
	no.Status = StatusExchangeRequested
	no.ExchangeItems = slices.Sorted(slices.Values(ids))
	no.ExchangeNewItems = slices.Sorted(slices.Values(newIDs))
	no.ExchangePriceDiff = &diff
	no.ExchangePaymentMethodID = pmID
	if err := putAll(st, &no); err != nil {
		return nil, err
	}
	return &no, nil
}
