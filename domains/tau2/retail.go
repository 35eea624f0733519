package tau2

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// retailIndex answers τ²'s retail scans; see index.go.
type retailIndex struct {
	byEmail         map[string][]string // pyLower(email) → user keys, in db order
	byName          map[string][]string // pyLower(first) \x00 pyLower(last) → user keys, in db order
	itemProduct     map[string]string   // item id → the first product (db order) whose variants hold it
	productTypes    string              // list_all_product_types' answer (no tool changes products)
	productTypesErr error
}

func buildRetailIndex(st *tools.State) *retailIndex {
	ix := &retailIndex{byEmail: map[string][]string{}, byName: map[string][]string{}, itemProduct: map[string]string{}}
	for _, k := range keyOrder(st, "users") {
		v, ok := st.Get("users", k)
		if !ok {
			continue
		}
		u, _ := v.(map[string]any)
		if email, ok := u["email"].(string); ok {
			l := pyLower(email)
			ix.byEmail[l] = append(ix.byEmail[l], k)
		}
		name, _ := u["name"].(map[string]any)
		first, ok1 := name["first_name"].(string)
		last, ok2 := name["last_name"].(string)
		if ok1 && ok2 {
			n := pyLower(first) + "\x00" + pyLower(last)
			ix.byName[n] = append(ix.byName[n], k)
		}
	}
	for _, k := range keyOrder(st, "products") {
		v, ok := st.Get("products", k)
		if !ok {
			continue
		}
		p, _ := v.(map[string]any)
		vars, _ := p["variants"].(map[string]any)
		for id := range vars {
			if _, seen := ix.itemProduct[id]; !seen {
				ix.itemProduct[id] = k
			}
		}
	}
	ix.productTypes, ix.productTypesErr = productTypes(st)
	return ix
}

// RetailHandlers returns Go handlers for τ²'s 16 retail tools, whose
// results, errors and writes are those of τ²'s RetailTools. They expect
// the state to hold CheckRetailDB's database (plus OrderCollection).
// Each call to RetailHandlers makes a set with its own index cache.
func RetailHandlers() pack.HandlerSet {
	cache := &indexCache[retailIndex]{anchor: "users", build: buildRetailIndex}
	r := &retail{cache: cache}
	return handlerSet("RetailTools", []toolDef{
		{"calculate", []string{"expression"}, calculateTool},
		{"cancel_pending_order", []string{"order_id", "reason"}, r.cancelPendingOrder},
		{"exchange_delivered_order_items", []string{"order_id", "item_ids", "new_item_ids", "payment_method_id"}, r.exchangeDeliveredOrderItems},
		{"find_user_id_by_name_zip", []string{"first_name", "last_name", "zip"}, r.findUserIDByNameZip},
		{"find_user_id_by_email", []string{"email"}, r.findUserIDByEmail},
		{"get_order_details", []string{"order_id"}, r.getOrderDetails},
		{"get_product_details", []string{"product_id"}, r.getProductDetails},
		{"get_item_details", []string{"item_id"}, r.getItemDetails},
		{"get_user_details", []string{"user_id"}, r.getUserDetails},
		{"list_all_product_types", nil, r.listAllProductTypes},
		{"modify_pending_order_address", []string{"order_id", "address1", "address2", "city", "state", "country", "zip"}, r.modifyPendingOrderAddress},
		{"modify_pending_order_items", []string{"order_id", "item_ids", "new_item_ids", "payment_method_id"}, r.modifyPendingOrderItems},
		{"modify_pending_order_payment", []string{"order_id", "payment_method_id"}, r.modifyPendingOrderPayment},
		{"modify_user_address", []string{"user_id", "address1", "address2", "city", "state", "country", "zip"}, r.modifyUserAddress},
		{"return_delivered_order_items", []string{"order_id", "item_ids", "payment_method_id"}, r.returnDeliveredOrderItems},
		{"transfer_to_human_agents", []string{"summary"}, transferTool},
	})
}

type retail struct {
	cache *indexCache[retailIndex]
}

func transferTool(*call) (any, error) { return "Transfer successful", nil }

func calculateTool(c *call) (any, error) {
	expr, err := c.str("expression")
	if err != nil {
		return nil, err
	}
	return calculate(expr)
}

// Lookups, with τ²'s messages.

func (r *retail) order(c *call, id string) (view, error) {
	v, ok, err := c.get("orders", id)
	if err == nil && !ok {
		err = plainError("Order not found")
	}
	return v, err
}

func (r *retail) user(c *call, id string) (view, error) {
	v, ok, err := c.get("users", id)
	if err == nil && !ok {
		err = plainError("User not found")
	}
	return v, err
}

func (r *retail) product(c *call, id string) (view, error) {
	v, ok, err := c.get("products", id)
	if err == nil && !ok {
		err = plainError("Product not found")
	}
	return v, err
}

func (r *retail) variant(c *call, productID, variantID string) (view, error) {
	p, err := r.product(c, productID)
	if err != nil {
		return view{}, err
	}
	vars, err := p.obj("variants")
	if err != nil {
		return view{}, err
	}
	e, ok := vars.m[variantID]
	if !ok {
		return view{}, plainError("Variant not found")
	}
	return vars.atKey(variantID, e)
}

// paymentMethod is τ²'s _get_payment_method: the user by key, then the
// method by id.
func (r *retail) paymentMethod(c *call, userID, pmID string) (view, error) {
	u, err := r.user(c, userID)
	if err != nil {
		return view{}, err
	}
	pms, err := u.obj("payment_methods")
	if err != nil {
		return view{}, err
	}
	e, ok := pms.m[pmID]
	if !ok {
		return view{}, plainError("Payment method not found")
	}
	return pms.atKey(pmID, e)
}

func isGiftCard(pm view) bool { return pm.m["source"] == "gift_card" }

// updateBalance applies f to a gift card's balance: the user record is
// copied along the path to the card and stored, as τ²'s in-place update
// is visible to everything after it.
func (r *retail) updateBalance(c *call, userID, pmID string, f func(float64) float64) error {
	u, err := r.user(c, userID)
	if err != nil {
		return err
	}
	pms, err := u.obj("payment_methods")
	if err != nil {
		return err
	}
	card, err := pms.atKey(pmID, pms.m[pmID])
	if err != nil {
		return err
	}
	bal, err := card.num("balance")
	if err != nil {
		return err
	}
	newCard := clone(card.m)
	newCard["balance"] = f(bal)
	newPMs := clone(pms.m)
	newPMs[pmID] = newCard
	newUser := clone(u.m)
	newUser["payment_methods"] = newPMs
	return c.put("users", userID, newUser)
}

// itemIDs lists an order's item ids (τ²'s all_item_ids).
func itemIDs(o view) ([]string, []view, error) {
	items, err := o.list("items")
	if err != nil {
		return nil, nil, err
	}
	ids := make([]string, len(items))
	views := make([]view, len(items))
	for i, e := range items {
		it, err := o.atIndex("items", i, e)
		if err != nil {
			return nil, nil, err
		}
		if ids[i], err = it.str("item_id"); err != nil {
			return nil, nil, err
		}
		views[i] = it
	}
	return ids, views, nil
}

func count(list []string, s string) int {
	n := 0
	for _, e := range list {
		if e == s {
			n++
		}
	}
	return n
}

// firstItem is next(item for item in order.items if item.item_id == id).
func firstItem(ids []string, id string) int { return slices.Index(ids, id) }

func sortedCopy(l []string) []any {
	s := slices.Clone(l)
	sort.Strings(s)
	out := make([]any, len(s))
	for i, e := range s {
		out[i] = e
	}
	return out
}

func orderPayment(kind string, amount any, pmID string) map[string]any {
	return map[string]any{"transaction_type": kind, "amount": amount, "payment_method_id": pmID}
}

func (r *retail) cancelPendingOrder(c *call) (any, error) {
	orderID, err := c.str("order_id")
	if err != nil {
		return nil, err
	}
	reason, err := c.str("reason")
	if err != nil {
		return nil, err
	}
	o, err := r.order(c, orderID)
	if err != nil {
		return nil, err
	}
	if st, err := o.str("status"); err != nil {
		return nil, err
	} else if st != "pending" {
		return nil, plainError("Non-pending order cannot be cancelled")
	}
	if reason != "no longer needed" && reason != "ordered by mistake" {
		return nil, plainError("Invalid reason")
	}
	history, err := o.list("payment_history")
	if err != nil {
		return nil, err
	}
	userID, err := o.str("user_id")
	if err != nil {
		return nil, err
	}
	refunds := make([]any, 0, len(history))
	// τ² refunds every entry of the history, refunds included, and a
	// failed lookup half way leaves the gift cards already credited.
	for i, e := range history {
		p, err := o.atIndex("payment_history", i, e)
		if err != nil {
			return nil, err
		}
		pmID, err := p.str("payment_method_id")
		if err != nil {
			return nil, err
		}
		amount, err := p.num("amount")
		if err != nil {
			return nil, err
		}
		refunds = append(refunds, orderPayment("refund", amount, pmID))
		u, err := r.user(c, userID)
		if err != nil {
			return nil, err
		}
		// τ² looks the method up through the user record's own user_id.
		uid, err := u.str("user_id")
		if err != nil {
			return nil, err
		}
		pm, err := r.paymentMethod(c, uid, pmID)
		if err != nil {
			return nil, err
		}
		if isGiftCard(pm) {
			if err := r.updateBalance(c, uid, pmID, func(b float64) float64 { return pyRound2(b + amount) }); err != nil {
				return nil, err
			}
		}
	}
	out := clone(o.m)
	out["status"] = "cancelled"
	out["cancel_reason"] = reason
	out["payment_history"] = append(slices.Clip(history), refunds...)
	return out, c.put("orders", orderID, out)
}

// itemChange is what exchanging or modifying an order's items starts
// from: the arguments, the order, and its items' ids.
type itemChange struct {
	orderID, pmID  string
	oldIDs, newIDs []string
	o              view
	all            []string
	items          []view
}

// changeWords are τ²'s words for an item change, which differ between
// an exchange and a modification.
type changeWords struct {
	status, wrongStatus, notFound, mismatch string
}

var (
	itemExchange = changeWords{"delivered", "Non-delivered order cannot be exchanged", "Number of %s not found.", "The number of items to be exchanged should match."}
	itemModify   = changeWords{"pending", "Non-pending order cannot be modified", "%s not found", "The number of items to be exchanged should match"}
)

// readItemChange reads an item change's arguments and order and checks
// them as τ² does, in its order: the order's status, that it holds the
// old items, and as many new items as old.
func (r *retail) readItemChange(c *call, w changeWords) (itemChange, error) {
	var ch itemChange
	var err error
	if ch.orderID, err = c.str("order_id"); err != nil {
		return ch, err
	}
	if ch.oldIDs, err = c.strList("item_ids"); err != nil {
		return ch, err
	}
	if ch.newIDs, err = c.strList("new_item_ids"); err != nil {
		return ch, err
	}
	if ch.pmID, err = c.str("payment_method_id"); err != nil {
		return ch, err
	}
	if ch.o, err = r.order(c, ch.orderID); err != nil {
		return ch, err
	}
	if st, err := ch.o.str("status"); err != nil {
		return ch, err
	} else if st != w.status {
		return ch, plainError(w.wrongStatus)
	}
	if ch.all, ch.items, err = itemIDs(ch.o); err != nil {
		return ch, err
	}
	for _, id := range ch.oldIDs {
		if count(ch.oldIDs, id) > count(ch.all, id) {
			return ch, fmt.Errorf(w.notFound, id)
		}
	}
	if len(ch.oldIDs) != len(ch.newIDs) {
		return ch, plainError(w.mismatch)
	}
	return ch, nil
}

func (r *retail) exchangeDeliveredOrderItems(c *call) (any, error) {
	ch, err := r.readItemChange(c, itemExchange)
	if err != nil {
		return nil, err
	}
	orderID, oldIDs, newIDs, pmID, o, all, items := ch.orderID, ch.oldIDs, ch.newIDs, ch.pmID, ch.o, ch.all, ch.items
	diff, err := r.priceDiff(c, all, items, oldIDs, newIDs, false)
	if err != nil {
		return nil, err
	}
	diffValue := diff.value()
	if diff.isFloat {
		diff.f = pyRound2(diff.f)
		diffValue = diff.f
	}
	userID, err := o.str("user_id")
	if err != nil {
		return nil, err
	}
	pm, err := r.paymentMethod(c, userID, pmID)
	if err != nil {
		return nil, err
	}
	if isGiftCard(pm) {
		bal, err := pm.num("balance")
		if err != nil {
			return nil, err
		}
		if bal < diff.f {
			return nil, plainError("Insufficient gift card balance to pay for the price difference")
		}
	}
	out := clone(o.m)
	out["status"] = "exchange requested"
	out["exchange_items"] = sortedCopy(oldIDs)
	out["exchange_new_items"] = sortedCopy(newIDs)
	out["exchange_payment_method_id"] = pmID
	out["exchange_price_difference"] = diffValue
	return out, c.put("orders", orderID, out)
}

// diffSum is τ²'s diff_price: the int 0 until a price difference is
// added, then a float.
type diffSum struct {
	isFloat bool
	f       float64
	last    view // the last new variant looked up (τ²'s loop variable)
}

func (d diffSum) value() any {
	if d.isFloat {
		return d.f
	}
	return int64(0)
}

// priceDiff is the loop both item tools share: for each pair, the first
// order item with the old id, the new variant of its product, available,
// and the sum of new minus old prices. modify also refuses a pair whose
// ids are equal.
func (r *retail) priceDiff(c *call, all []string, items []view, oldIDs, newIDs []string, modify bool) (diffSum, error) {
	var d diffSum
	for i, id := range oldIDs {
		newID := newIDs[i]
		if modify && id == newID {
			return d, plainError("The new item id should be different from the old item id")
		}
		j := firstItem(all, id)
		if j < 0 {
			return d, fmt.Errorf("Item %s not found", id)
		}
		productID, err := items[j].str("product_id")
		if err != nil {
			return d, err
		}
		v, err := r.variant(c, productID, newID)
		if err != nil {
			return d, err
		}
		if avail, ok := v.m["available"].(bool); !ok {
			return d, v.bad("available", "a boolean")
		} else if !avail {
			return d, fmt.Errorf("New item %s not found or available", newID)
		}
		oldPrice, err := items[j].num("price")
		if err != nil {
			return d, err
		}
		newPrice, err := v.num("price")
		if err != nil {
			return d, err
		}
		d.f += newPrice - oldPrice
		d.isFloat = true
		d.last = v
	}
	return d, nil
}

func (r *retail) findUserIDByNameZip(c *call) (any, error) {
	first, err := c.str("first_name")
	if err != nil {
		return nil, err
	}
	last, err := c.str("last_name")
	if err != nil {
		return nil, err
	}
	zip, err := c.str("zip")
	if err != nil {
		return nil, err
	}
	lf, ll := pyLower(first), pyLower(last)
	match := func(k string) (bool, error) {
		u, ok, err := c.get("users", k)
		if err != nil || !ok {
			return false, err
		}
		name, err := u.obj("name")
		if err != nil {
			return false, err
		}
		f, err := name.str("first_name")
		if err != nil {
			return false, err
		}
		l, err := name.str("last_name")
		if err != nil {
			return false, err
		}
		addr, err := u.obj("address")
		if err != nil {
			return false, err
		}
		z, err := addr.str("zip")
		if err != nil {
			return false, err
		}
		return pyLower(f) == lf && pyLower(l) == ll && z == zip, nil
	}
	keys := keyOrder
	if ix := r.cache.get(c.st); ix != nil {
		keys = func(*tools.State, string) []string { return ix.byName[lf+"\x00"+ll] }
	}
	for _, k := range keys(c.st, "users") {
		if ok, err := match(k); err != nil {
			return nil, err
		} else if ok {
			return k, nil
		}
	}
	return nil, plainError("User not found")
}

func (r *retail) findUserIDByEmail(c *call) (any, error) {
	email, err := c.str("email")
	if err != nil {
		return nil, err
	}
	le := pyLower(email)
	keys := keyOrder
	if ix := r.cache.get(c.st); ix != nil {
		keys = func(*tools.State, string) []string { return ix.byEmail[le] }
	}
	for _, k := range keys(c.st, "users") {
		u, ok, err := c.get("users", k)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		e, err := u.str("email")
		if err != nil {
			return nil, err
		}
		if pyLower(e) == le {
			return k, nil
		}
	}
	return nil, plainError("User not found")
}

func (r *retail) getOrderDetails(c *call) (any, error) {
	id, err := c.str("order_id")
	if err != nil {
		return nil, err
	}
	o, err := r.order(c, id)
	return o.m, err
}

func (r *retail) getProductDetails(c *call) (any, error) {
	id, err := c.str("product_id")
	if err != nil {
		return nil, err
	}
	p, err := r.product(c, id)
	return p.m, err
}

func (r *retail) getItemDetails(c *call) (any, error) {
	id, err := c.str("item_id")
	if err != nil {
		return nil, err
	}
	if ix := r.cache.get(c.st); ix != nil {
		k, ok := ix.itemProduct[id]
		if !ok {
			return nil, plainError("Item not found")
		}
		v, err := r.variant(c, k, id)
		return v.m, err
	}
	for _, k := range keyOrder(c.st, "products") {
		p, ok, err := c.get("products", k)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		vars, err := p.obj("variants")
		if err != nil {
			return nil, err
		}
		if e, ok := vars.m[id]; ok {
			v, err := vars.atKey(id, e)
			return v.m, err
		}
	}
	return nil, plainError("Item not found")
}

func (r *retail) getUserDetails(c *call) (any, error) {
	id, err := c.str("user_id")
	if err != nil {
		return nil, err
	}
	u, err := r.user(c, id)
	return u.m, err
}

func (r *retail) listAllProductTypes(c *call) (any, error) {
	if ix := r.cache.get(c.st); ix != nil {
		return ix.productTypes, ix.productTypesErr
	}
	return productTypes(c.st)
}

// productTypes is json.dumps({product.name: product.product_id, ...},
// sort_keys=True): Python's separators and ASCII escapes; of two
// products with one name the later in db order wins.
func productTypes(st *tools.State) (string, error) {
	byName := map[string]string{}
	for _, k := range keyOrder(st, "products") {
		v, ok := st.Get("products", k)
		if !ok {
			continue
		}
		p := recView("products", k, nil)
		p.m, _ = v.(map[string]any)
		name, err := p.str("name")
		if err != nil {
			return "", err
		}
		id, err := p.str("product_id")
		if err != nil {
			return "", err
		}
		byName[name] = id
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		pyJSONString(&b, n)
		b.WriteString(": ")
		pyJSONString(&b, byName[n])
	}
	b.WriteByte('}')
	return b.String(), nil
}

// address is τ²'s UserAddress built from the tool's arguments.
func address(c *call) (map[string]any, error) {
	out := make(map[string]any, 6)
	for _, f := range []string{"address1", "address2", "city", "country", "state", "zip"} {
		s, err := c.str(f)
		if err != nil {
			return nil, err
		}
		out[f] = s
	}
	return out, nil
}

func (r *retail) modifyPendingOrderAddress(c *call) (any, error) {
	orderID, err := c.str("order_id")
	if err != nil {
		return nil, err
	}
	addr, err := address(c)
	if err != nil {
		return nil, err
	}
	o, err := r.order(c, orderID)
	if err != nil {
		return nil, err
	}
	// τ²'s _is_pending_order: "pending" anywhere in the status, so
	// "pending (item modified)" orders may still change address.
	if st, err := o.str("status"); err != nil {
		return nil, err
	} else if !strings.Contains(st, "pending") {
		return nil, plainError("Non-pending order cannot be modified")
	}
	out := clone(o.m)
	out["address"] = addr
	return out, c.put("orders", orderID, out)
}

func (r *retail) modifyPendingOrderItems(c *call) (any, error) {
	ch, err := r.readItemChange(c, itemModify)
	if err != nil {
		return nil, err
	}
	orderID, oldIDs, newIDs, pmID, o, all, items := ch.orderID, ch.oldIDs, ch.newIDs, ch.pmID, ch.o, ch.all, ch.items
	diff, err := r.priceDiff(c, all, items, oldIDs, newIDs, true)
	if err != nil {
		return nil, err
	}
	userID, err := o.str("user_id")
	if err != nil {
		return nil, err
	}
	pm, err := r.paymentMethod(c, userID, pmID)
	if err != nil {
		return nil, err
	}
	if isGiftCard(pm) {
		bal, err := pm.num("balance")
		if err != nil {
			return nil, err
		}
		if bal < diff.f {
			return nil, plainError("Insufficient gift card balance to pay for the new item")
		}
	}
	history, err := o.list("payment_history")
	if err != nil {
		return nil, err
	}
	kind := "refund"
	if diff.f > 0 {
		kind = "payment"
	}
	// The amount is abs(diff_price), unrounded (OrderPayment makes a
	// float of the int 0 it is when no item changes).
	out := clone(o.m)
	out["payment_history"] = append(slices.Clip(history), orderPayment(kind, math.Abs(diff.f), pmID))
	if isGiftCard(pm) {
		if err := r.updateBalance(c, userID, pmID, func(b float64) float64 { return pyRound2(b - diff.f) }); err != nil {
			return nil, err
		}
	}
	// τ² renames the first item still holding each old id, and gives
	// every changed item the price and options of the last new variant
	// its first loop looked up, not of its own.
	newItems := slices.Clone(mustList(o.m["items"]))
	ids := slices.Clone(all)
	for i, id := range oldIDs {
		j := firstItem(ids, id)
		if j < 0 {
			out["items"] = newItems
			if err := c.put("orders", orderID, out); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("Item %s not found", id)
		}
		it := clone(newItems[j].(map[string]any))
		it["item_id"] = newIDs[i]
		it["price"] = diff.last.m["price"]
		it["options"] = diff.last.m["options"]
		newItems[j] = it
		ids[j] = newIDs[i]
	}
	out["items"] = newItems
	out["status"] = "pending (item modified)"
	return out, c.put("orders", orderID, out)
}

// mustList is a list field itemIDs has already checked.
func mustList(v any) []any {
	l, _ := v.([]any)
	return l
}

func (r *retail) modifyPendingOrderPayment(c *call) (any, error) {
	orderID, err := c.str("order_id")
	if err != nil {
		return nil, err
	}
	pmID, err := c.str("payment_method_id")
	if err != nil {
		return nil, err
	}
	o, err := r.order(c, orderID)
	if err != nil {
		return nil, err
	}
	if st, err := o.str("status"); err != nil {
		return nil, err
	} else if !strings.Contains(st, "pending") {
		return nil, plainError("Non-pending order cannot be modified")
	}
	userID, err := o.str("user_id")
	if err != nil {
		return nil, err
	}
	pm, err := r.paymentMethod(c, userID, pmID)
	if err != nil {
		return nil, err
	}
	history, err := o.list("payment_history")
	if err != nil {
		return nil, err
	}
	var first view
	if len(history) == 1 {
		if first, err = o.atIndex("payment_history", 0, history[0]); err != nil {
			return nil, err
		}
	}
	if len(history) != 1 || first.m["transaction_type"] != "payment" {
		return nil, plainError("There should be exactly one payment for a pending order")
	}
	oldPM, err := first.str("payment_method_id")
	if err != nil {
		return nil, err
	}
	if oldPM == pmID {
		return nil, plainError("The new payment method should be different from the current one")
	}
	amount, err := first.num("amount")
	if err != nil {
		return nil, err
	}
	if isGiftCard(pm) {
		bal, err := pm.num("balance")
		if err != nil {
			return nil, err
		}
		if bal < amount {
			return nil, plainError("Insufficient gift card balance to pay for the order")
		}
	}
	out := clone(o.m)
	out["payment_history"] = append(slices.Clip(history),
		orderPayment("payment", amount, pmID), orderPayment("refund", amount, oldPM))
	if isGiftCard(pm) {
		if err := r.updateBalance(c, userID, pmID, func(b float64) float64 { return pyRound2(b - amount) }); err != nil {
			return nil, err
		}
	}
	// The order already changed; τ² keeps the change if the old
	// method is gone from the user.
	old, err := r.paymentMethod(c, userID, oldPM)
	if err != nil {
		if perr := c.put("orders", orderID, out); perr != nil {
			return nil, perr
		}
		return nil, err
	}
	if isGiftCard(old) {
		if err := r.updateBalance(c, userID, oldPM, func(b float64) float64 { return pyRound2(b + amount) }); err != nil {
			return nil, err
		}
	}
	return out, c.put("orders", orderID, out)
}

func (r *retail) modifyUserAddress(c *call) (any, error) {
	userID, err := c.str("user_id")
	if err != nil {
		return nil, err
	}
	addr, err := address(c)
	if err != nil {
		return nil, err
	}
	u, err := r.user(c, userID)
	if err != nil {
		return nil, err
	}
	out := clone(u.m)
	out["address"] = addr
	return out, c.put("users", userID, out)
}

func (r *retail) returnDeliveredOrderItems(c *call) (any, error) {
	orderID, err := c.str("order_id")
	if err != nil {
		return nil, err
	}
	ids, err := c.strList("item_ids")
	if err != nil {
		return nil, err
	}
	pmID, err := c.str("payment_method_id")
	if err != nil {
		return nil, err
	}
	o, err := r.order(c, orderID)
	if err != nil {
		return nil, err
	}
	if st, err := o.str("status"); err != nil {
		return nil, err
	} else if st != "delivered" {
		return nil, plainError("Non-delivered order cannot be returned")
	}
	userID, err := o.str("user_id")
	if err != nil {
		return nil, err
	}
	u, err := r.user(c, userID)
	if err != nil {
		return nil, err
	}
	uid, err := u.str("user_id")
	if err != nil {
		return nil, err
	}
	pm, err := r.paymentMethod(c, uid, pmID)
	if err != nil {
		return nil, err
	}
	if !isGiftCard(pm) {
		history, err := o.list("payment_history")
		if err != nil {
			return nil, err
		}
		if len(history) == 0 {
			return nil, plainError("list index out of range")
		}
		first, err := o.atIndex("payment_history", 0, history[0])
		if err != nil {
			return nil, err
		}
		orig, err := first.str("payment_method_id")
		if err != nil {
			return nil, err
		}
		if pmID != orig {
			return nil, plainError("Payment method should be the original payment method")
		}
	}
	all, _, err := itemIDs(o)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if count(ids, id) > count(all, id) {
			return nil, plainError("Some item not found")
		}
	}
	out := clone(o.m)
	out["status"] = "return requested"
	out["return_items"] = sortedCopy(ids)
	out["return_payment_method_id"] = pmID
	return out, c.put("orders", orderID, out)
}
