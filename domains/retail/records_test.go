package retail

// Test support: the record types of the retail database and the
// invariants every generated database must hold, decoded from what
// generator.star builds (the pack itself handles records as JSON).

import (
	"encoding/json"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// Collections of the retail database.
const (
	Users    = "users"
	Orders   = "orders"
	Products = "products"
)

// Order statuses.
const (
	StatusPending           = "pending"
	StatusProcessed         = "processed"
	StatusDelivered         = "delivered"
	StatusCancelled         = "cancelled"
	StatusPendingModified   = "pending (item modified)"
	StatusReturnRequested   = "return requested"
	StatusExchangeRequested = "exchange requested"
)

// PersonName is a person's name. (The type is not called Name because
// that identifier is the domain's name constant.)
type PersonName struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// Address is a postal address.
type Address struct {
	Address1 string `json:"address1"`
	Address2 string `json:"address2"`
	City     string `json:"city"`
	Country  string `json:"country"`
	State    string `json:"state"`
	Zip      string `json:"zip"`
}

// PaymentMethod is a card, a gift card (with a balance) or a PayPal account.
type PaymentMethod struct {
	Source   string   `json:"source"` // credit_card | gift_card | paypal
	ID       string   `json:"id"`
	Brand    string   `json:"brand,omitempty"`
	LastFour string   `json:"last_four,omitempty"`
	Balance  *float64 `json:"balance,omitempty"`
}

// User is a customer account.
type User struct {
	UserID         string                   `json:"user_id"`
	Name           PersonName               `json:"name"`
	Address        Address                  `json:"address"`
	Email          string                   `json:"email"`
	PaymentMethods map[string]PaymentMethod `json:"payment_methods"`
	Orders         []string                 `json:"orders"`
}

// Variant is one purchasable item of a product.
type Variant struct {
	ItemID    string            `json:"item_id"`
	Options   map[string]string `json:"options"`
	Available bool              `json:"available"`
	Price     float64           `json:"price"`
}

// Product is a product type with its variants.
type Product struct {
	Name      string             `json:"name"`
	ProductID string             `json:"product_id"`
	Variants  map[string]Variant `json:"variants"`
}

// OrderItem is one line of an order.
type OrderItem struct {
	Name      string            `json:"name"`
	ProductID string            `json:"product_id"`
	ItemID    string            `json:"item_id"`
	Price     float64           `json:"price"`
	Options   map[string]string `json:"options"`
}

// Fulfillment is a shipment.
type Fulfillment struct {
	TrackingID []string `json:"tracking_id"`
	ItemIDs    []string `json:"item_ids"`
}

// Payment is a payment or refund transaction.
type Payment struct {
	TransactionType string  `json:"transaction_type"` // payment | refund
	Amount          float64 `json:"amount"`
	PaymentMethodID string  `json:"payment_method_id"`
}

// Order is a customer order.
type Order struct {
	OrderID        string        `json:"order_id"`
	UserID         string        `json:"user_id"`
	CreatedAt      string        `json:"created_at"` // "2024-05-01T10:23:00", before the fixed clock
	Address        Address       `json:"address"`
	Items          []OrderItem   `json:"items"`
	Fulfillments   []Fulfillment `json:"fulfillments"`
	Status         string        `json:"status"`
	PaymentHistory []Payment     `json:"payment_history"`
	CancelReason   string        `json:"cancel_reason,omitempty"`
	// Set by return and exchange requests.
	ReturnItems       []string `json:"return_items,omitempty"`
	ExchangeItems     []string `json:"exchange_items,omitempty"`
	ExchangeNewItems  []string `json:"exchange_new_items,omitempty"`
	ExchangePriceDiff *float64 `json:"exchange_price_difference,omitempty"`
	// ExchangePaymentMethodID pays or receives the exchange's price
	// difference; without it, exchanges that differ only in the payment
	// method chosen would leave equal states.
	ExchangePaymentMethodID string `json:"exchange_payment_method_id,omitempty"`
	RefundMethodID          string `json:"return_payment_method_id,omitempty"`
}

// Clock is the domain's fixed "now" (US Eastern time). Every order was
// created before it, and the policy tells the agent to assume it.
const Clock = "2024-05-15T15:00:00"

// TimeLayout is the layout of Order.CreatedAt.
const TimeLayout = "2006-01-02T15:04:05"

// Payment sources.
const (
	SourceCreditCard = "credit_card"
	SourceGiftCard   = "gift_card"
	SourcePayPal     = "paypal"
)

// Cancellation reasons the policy and the cancel tool accept.
const (
	ReasonNoLongerNeeded = "no longer needed"
	ReasonMistake        = "ordered by mistake"
)

// Database shape.
const (
	numUsers       = 600
	minVariants    = 10
	maxVariants    = 14
	heavyUserShare = 0.10 // share of users with 8–14 orders
	availableShare = 0.75
	minAvailable   = 2 // so every product has something to exchange for
)

// DB is a generated retail database plus lookup indexes. It is built once
// and then only read: tools see it through a tools.Base.
type DB struct {
	Users    map[string]*User
	Orders   map[string]*Order
	Products map[string]*Product

	// Sorted ids, for deterministic iteration.
	UserIDs    []string
	OrderIDs   []string
	ProductIDs []string

	// ByEmail maps a lowercased email to its user id.
	ByEmail map[string]string
	// ByNameZip maps NameZipKey(first, last, zip) to its user id; the
	// generator keeps name+zip unique so the name+zip lookup is unambiguous.
	ByNameZip map[string]string
	// ItemProduct maps every item (variant) id to its product id.
	ItemProduct map[string]string
}

// NameZipKey is the ByNameZip key of a name and zip code.
func NameZipKey(first, last, zip string) string {
	return strings.ToLower(strings.TrimSpace(first) + "|" + strings.TrimSpace(last) + "|" + strings.TrimSpace(zip))
}

// RoundCents rounds an amount of money to cents. Every amount the domain
// stores goes through it so that equal states hash equally.
func RoundCents(x float64) float64 {
	if math.Abs(x) >= 1e15 || math.IsNaN(x) {
		return x // no cents at this magnitude, and x*100 could overflow
	}
	r := math.Round(x*100) / 100
	if r == 0 {
		return 0 // no negative zero in JSON
	}
	return r
}

// optionSpec is one option dimension of a product, e.g. size: S, M, L.
type optionSpec struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// productSpec is one product type: its name, the range its base price is
// drawn from, and its option dimensions in display order.
type productSpec struct {
	Name    string       `json:"name"`
	Price   [2]float64   `json:"price"`
	Options []optionSpec `json:"options"`
}

// combinations is the number of distinct option combinations.
func (p productSpec) combinations() int {
	n := 1
	for _, o := range p.Options {
		n *= len(o.Values)
	}
	return n
}

var (
	reUserID   = regexp.MustCompile(`^[a-z]+_[a-z]+_\d{4}$`)
	reOrderID  = regexp.MustCompile(`^#W\d{7}$`)
	reID10     = regexp.MustCompile(`^\d{10}$`)
	reTracking = regexp.MustCompile(`^\d{12}$`)
	reEmail    = regexp.MustCompile(`^[a-z]+\.[a-z]+\d{4}@example\.com$`)
	rePayment  = regexp.MustCompile(`^(credit_card|gift_card|paypal)_\d{7}$`)
	reZip      = regexp.MustCompile(`^\d{5}$`)
)

func isCents(x float64) bool { return x == RoundCents(x) }

// checkDB asserts the database invariants the blueprint generator and the
// tools rely on.
func checkDB(t *testing.T, db *DB) {
	t.Helper()
	errorf := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format, args...)
	}
	if len(db.Users) != numUsers {
		errorf("%d users, want %d", len(db.Users), numUsers)
	}
	if n := len(db.Orders); n < 2200 || n > 2700 {
		errorf("%d orders, want about 2400", n)
	}
	if len(db.Products) != 50 {
		errorf("%d products, want 50", len(db.Products))
	}
	for _, c := range []struct {
		name string
		ids  []string
		keys []string
	}{
		{"UserIDs", db.UserIDs, slices.Sorted(maps.Keys(db.Users))},
		{"OrderIDs", db.OrderIDs, slices.Sorted(maps.Keys(db.Orders))},
		{"ProductIDs", db.ProductIDs, slices.Sorted(maps.Keys(db.Products))},
	} {
		if !slices.Equal(c.ids, c.keys) {
			errorf("%s is not the sorted key list", c.name)
		}
	}

	ids := make(map[string]string) // every id -> what it is, to catch collisions
	claim := func(id, what string) {
		t.Helper()
		if prev, dup := ids[id]; dup {
			errorf("id %s used by %s and %s", id, prev, what)
		}
		ids[id] = what
	}

	variants, available := 0, 0
	for _, pid := range db.ProductIDs {
		p := db.Products[pid]
		claim(pid, "product "+p.Name)
		if !reID10.MatchString(pid) || p.ProductID != pid {
			errorf("product %s: bad id %q", p.Name, p.ProductID)
		}
		if n := len(p.Variants); n < minVariants || n > maxVariants {
			errorf("product %s: %d variants, want %d-%d", p.Name, n, minVariants, maxVariants)
		}
		variants += len(p.Variants)
		combos := make(map[string]bool)
		var dims []string
		avail := 0
		for _, iid := range slices.Sorted(maps.Keys(p.Variants)) {
			v := p.Variants[iid]
			claim(iid, "item of "+p.Name)
			if !reID10.MatchString(iid) || v.ItemID != iid {
				errorf("product %s: bad item id %q", p.Name, v.ItemID)
			}
			if db.ItemProduct[iid] != pid {
				errorf("ItemProduct[%s] = %q, want %s", iid, db.ItemProduct[iid], pid)
			}
			keys := slices.Sorted(maps.Keys(v.Options))
			if dims == nil {
				dims = keys
			} else if !slices.Equal(dims, keys) {
				errorf("product %s: variants have different option dimensions %v and %v", p.Name, dims, keys)
			}
			b, _ := json.Marshal(v.Options)
			if combos[string(b)] {
				errorf("product %s: duplicate option combination %s", p.Name, b)
			}
			combos[string(b)] = true
			if v.Price <= 0 || !isCents(v.Price) {
				errorf("item %s: price %v", iid, v.Price)
			}
			if v.Available {
				avail++
			}
		}
		if avail < minAvailable {
			errorf("product %s: only %d available variants", p.Name, avail)
		}
		available += avail
	}
	if variants < 500 {
		errorf("%d variants, want at least 500", variants)
	}
	if len(db.ItemProduct) != variants {
		errorf("ItemProduct has %d entries for %d variants", len(db.ItemProduct), variants)
	}
	if share := float64(available) / float64(variants); share < 0.65 || share > 0.85 {
		errorf("%.2f of variants available, want about 0.75", share)
	}

	start, end := "2024-01-02T00:00:00", "2024-05-15T00:00:00"
	owner := make(map[string]string)
	heavy := 0
	nameZip := make(map[string]bool)
	for _, uid := range db.UserIDs {
		u := db.Users[uid]
		claim(uid, "user")
		if !reUserID.MatchString(uid) || u.UserID != uid {
			errorf("bad user id %q", u.UserID)
		}
		if want := strings.ToLower(u.Name.FirstName + "_" + u.Name.LastName + "_"); !strings.HasPrefix(uid, want) {
			errorf("user id %s does not start with %s", uid, want)
		}
		claim(u.Email, "email")
		if !reEmail.MatchString(u.Email) || db.ByEmail[u.Email] != uid {
			errorf("user %s: bad or unindexed email %q", uid, u.Email)
		}
		key := NameZipKey(u.Name.FirstName, u.Name.LastName, u.Address.Zip)
		if nameZip[key] || db.ByNameZip[key] != uid {
			errorf("user %s: name+zip %q is not unique or not indexed", uid, key)
		}
		nameZip[key] = true
		a := u.Address
		if a.Address1 == "" || a.City == "" || len(a.State) != 2 || a.Country != "USA" || !reZip.MatchString(a.Zip) {
			errorf("user %s: bad address %+v", uid, a)
		}
		if n := len(u.PaymentMethods); n < 1 || n > 3 {
			errorf("user %s: %d payment methods", uid, n)
		}
		for id, pm := range u.PaymentMethods {
			claim(id, "payment method")
			if !rePayment.MatchString(id) || pm.ID != id || !strings.HasPrefix(id, pm.Source+"_") {
				errorf("user %s: bad payment method %+v", uid, pm)
			}
			switch pm.Source {
			case SourceGiftCard:
				if pm.Balance == nil || *pm.Balance < 0 || *pm.Balance > 500 || !isCents(*pm.Balance) {
					errorf("gift card %s: bad balance", id)
				}
			case SourceCreditCard:
				if !slices.Contains([]string{"visa", "mastercard", "amex", "discover"}, pm.Brand) || len(pm.LastFour) != 4 {
					errorf("credit card %s: bad brand or last four", id)
				}
			}
		}
		if n := len(u.Orders); n < 1 || n > 14 {
			errorf("user %s: %d orders", uid, n)
		} else if n >= 8 {
			heavy++
		}
		times := map[string]bool{}
		for _, oid := range u.Orders {
			o := db.Orders[oid]
			if o == nil {
				errorf("user %s lists unknown order %s", uid, oid)
				continue
			}
			if _, err := time.Parse(TimeLayout, o.CreatedAt); err != nil || o.CreatedAt < start || o.CreatedAt >= end {
				errorf("order %s: created_at %q", oid, o.CreatedAt)
			}
			if times[o.CreatedAt] {
				errorf("user %s: two orders created at %s", uid, o.CreatedAt)
			}
			times[o.CreatedAt] = true
			if p, dup := owner[oid]; dup {
				errorf("order %s listed by %s and %s", oid, p, uid)
			}
			owner[oid] = uid
		}
	}
	if share := float64(heavy) / float64(len(db.Users)); share < 0.08 || share > 0.12 {
		errorf("%.3f of users have 8+ orders, want about 0.10", share)
	}

	statuses := make(map[string]int)
	for _, oid := range db.OrderIDs {
		o := db.Orders[oid]
		claim(oid, "order")
		statuses[o.Status]++
		if !reOrderID.MatchString(oid) || o.OrderID != oid {
			errorf("bad order id %q", o.OrderID)
		}
		if owner[oid] != o.UserID {
			errorf("order %s: user %s, listed by %q", oid, o.UserID, owner[oid])
		}
		u := db.Users[o.UserID]
		if n := len(o.Items); n < 1 || n > 5 {
			errorf("order %s: %d items", oid, n)
		}
		seen := make(map[string]bool)
		total := 0.0
		for _, it := range o.Items {
			if seen[it.ItemID] {
				errorf("order %s: item %s twice", oid, it.ItemID)
			}
			seen[it.ItemID] = true
			p := db.Products[it.ProductID]
			if p == nil || db.ItemProduct[it.ItemID] != it.ProductID || p.Name != it.Name {
				errorf("order %s: item %s does not match its product", oid, it.ItemID)
				continue
			}
			v := p.Variants[it.ItemID]
			if v.Price != it.Price || !maps.Equal(v.Options, it.Options) {
				errorf("order %s: item %s differs from its variant", oid, it.ItemID)
			}
			total += it.Price
		}
		if len(o.PaymentHistory) == 0 {
			errorf("order %s: no payment", oid)
			continue
		}
		pay := o.PaymentHistory[0]
		if pay.TransactionType != "payment" || pay.Amount != RoundCents(total) {
			errorf("order %s: first transaction %+v, want a payment of %.2f", oid, pay, RoundCents(total))
		}
		if _, ok := u.PaymentMethods[pay.PaymentMethodID]; !ok {
			errorf("order %s: paid with %s, not a method of %s", oid, pay.PaymentMethodID, u.UserID)
		}
		switch o.Status {
		case StatusCancelled:
			if len(o.PaymentHistory) != 2 || o.PaymentHistory[1] != (Payment{"refund", pay.Amount, pay.PaymentMethodID}) {
				errorf("cancelled order %s: payment history %+v", oid, o.PaymentHistory)
			}
			if o.CancelReason != ReasonNoLongerNeeded && o.CancelReason != ReasonMistake {
				errorf("cancelled order %s: reason %q", oid, o.CancelReason)
			}
		case StatusDelivered, StatusProcessed:
			if len(o.PaymentHistory) != 1 || len(o.Fulfillments) == 0 {
				errorf("%s order %s: %d transactions, %d fulfillments", o.Status, oid, len(o.PaymentHistory), len(o.Fulfillments))
			}
			for _, f := range o.Fulfillments {
				for _, tr := range f.TrackingID {
					claim(tr, "tracking id")
					if !reTracking.MatchString(tr) {
						errorf("order %s: tracking id %q", oid, tr)
					}
				}
			}
		case StatusPending:
			if len(o.PaymentHistory) != 1 || len(o.Fulfillments) != 0 {
				errorf("pending order %s: %d transactions, %d fulfillments", oid, len(o.PaymentHistory), len(o.Fulfillments))
			}
		default:
			errorf("order %s: status %q", oid, o.Status)
		}
	}
	for _, c := range []struct {
		status string
		share  float64
	}{{StatusPending, 0.30}, {StatusProcessed, 0.15}, {StatusDelivered, 0.40}, {StatusCancelled, 0.15}} {
		n := statuses[c.status]
		share := float64(n) / float64(len(db.Orders))
		if n < 150 || math.Abs(share-c.share) > 0.04 {
			errorf("%d %s orders (%.2f), want at least 150 and about %.2f", n, c.status, share, c.share)
		}
	}
}
