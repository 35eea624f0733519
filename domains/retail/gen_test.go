package retail

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWordLists(t *testing.T) {
	w, err := loadWords()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  int
		min  int
	}{
		{"first names", len(w.first), 200},
		{"last names", len(w.last), 200},
		{"streets", len(w.streets), 80},
		{"cities", len(w.cities), 60},
	} {
		if c.got < c.min {
			t.Errorf("%s: %d entries, want at least %d", c.name, c.got, c.min)
		}
	}
	want := []string{"Action Camera", "Air Purifier", "Backpack", "Bicycle", "Bluetooth Speaker", "Bookshelf",
		"Coffee Maker", "Cycling Helmet", "Desk Lamp", "Digital Camera", "Dumbbell Set", "E-Reader", "Electric Kettle",
		"Electric Toothbrush", "Espresso Machine", "Fleece Jacket", "Gaming Mouse", "Garden Hose", "Grill", "Headphones",
		"Hiking Boots", "Indoor Security Camera", "Jigsaw Puzzle", "LED Light Bulb", "Laptop", "Luggage Set", "Makeup Kit",
		"Mechanical Keyboard", "Notebook", "Office Chair", "Patio Umbrella", "Perfume", "Pet Bed", "Portable Charger",
		"Running Shoes", "Skateboard", "Smart Thermostat", "Smart Watch", "Smartphone", "Sneakers", "Sunglasses", "T-Shirt",
		"Tablet", "Tea Kettle", "Vacuum Cleaner", "Wall Clock", "Water Bottle", "Wireless Earbuds", "Wristwatch", "Yoga Mat"}
	var got []string
	for _, p := range w.products {
		got = append(got, p.Name)
		if n := p.combinations(); n < maxVariants {
			t.Errorf("%s: %d option combinations, want at least %d", p.Name, n, maxVariants)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("products = %v\nwant %v", got, want)
	}
	// Names feed user ids and emails, which must stay plain ASCII.
	name := regexp.MustCompile(`^[A-Z][a-z]+$`)
	for _, n := range slices.Concat(w.first, w.last) {
		if !name.MatchString(n) {
			t.Errorf("name %q is not a capitalised ASCII word", n)
		}
	}
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
		prev := ""
		for _, oid := range u.Orders {
			o := db.Orders[oid]
			if o == nil {
				errorf("user %s lists unknown order %s", uid, oid)
				continue
			}
			if _, err := time.Parse(TimeLayout, o.CreatedAt); err != nil || o.CreatedAt < start || o.CreatedAt >= end {
				errorf("order %s: created_at %q", oid, o.CreatedAt)
			}
			if o.CreatedAt <= prev {
				errorf("user %s: orders not strictly ascending by created_at at %s", uid, oid)
			}
			prev = o.CreatedAt
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

func TestGenerate(t *testing.T) {
	for _, seed := range []uint64{1, 7, 42} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			db, err := Generate(seed)
			if err != nil {
				t.Fatal(err)
			}
			checkDB(t, db)
		})
	}
}

func TestDeterminism(t *testing.T) {
	a, err := New(7)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(7)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(8)
	if err != nil {
		t.Fatal(err)
	}
	if a.Base.Hash() != b.Base.Hash() {
		t.Error("New(7) twice gave different hashes")
	}
	if !slices.Equal(a.DB.OrderIDs, b.DB.OrderIDs) || !maps.Equal(a.DB.ByNameZip, b.DB.ByNameZip) {
		t.Error("New(7) twice gave different ids or indexes")
	}
	if a.Base.Hash() == c.Base.Hash() {
		t.Error("New(7) and New(8) gave the same hash")
	}
}

func TestNew(t *testing.T) {
	d, err := New(3)
	if err != nil {
		t.Fatal(err)
	}
	if d.Policy != Policy() || !strings.Contains(d.Policy, "2024-05-15 15:00:00 EST") {
		t.Error("policy missing or without the fixed clock")
	}
	for _, c := range []struct {
		coll string
		ids  []string
	}{{Users, d.DB.UserIDs}, {Orders, d.DB.OrderIDs}, {Products, d.DB.ProductIDs}} {
		if !slices.Equal(d.Base.Keys(c.coll), c.ids) {
			t.Errorf("base collection %s does not hold the DB's records", c.coll)
		}
	}
	if v, _ := d.Base.Get(Users, d.DB.UserIDs[0]); v != d.DB.Users[d.DB.UserIDs[0]] {
		t.Error("base records are not the DB's pointers")
	}
	if Name != "retail" {
		t.Errorf("Name = %q", Name)
	}
}

func BenchmarkNew(b *testing.B) {
	for i := range b.N {
		if _, err := New(uint64(i)); err != nil {
			b.Fatal(err)
		}
	}
}
