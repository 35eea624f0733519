package retail

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// The tests of generator.star, the retail database as a pack generator.
// They load it through the pack machinery in a minimal pack and check the
// guarantees gen.go gives (checkDB) and its statistics, plus the record
// shapes of tau2-bench's retail data model.

// starManifest is the minimal pack around generator.star: the three
// collections, the users and one read tool with a Go handler.
const starManifest = `name: retailgen
version: "1"
clock: "2024-05-15T15:00:00-05:00"
handlers: builtin:retailgen
generator: generator.star
collections:
  users:
    key: user_id
  orders:
    key: order_id
    owner: user_id
  products:
    key: product_id
users:
  collection: users
  name: [name.first_name, name.last_name]
  identify:
    - tool: get_user_details
      args: {user_id: user_id}
`

const starTools = `[{"type": "function", "function": {
  "name": "get_user_details",
  "description": "Get a user's details by user id.",
  "x-kind": "read",
  "parameters": {"type": "object", "properties": {"user_id": {"type": "string"}}, "required": ["user_id"]}
}}]`

var starBuiltins = map[string]pack.HandlerSet{"retailgen": {
	"get_user_details": func(_ context.Context, st *tools.State, args map[string]any) (any, error) {
		if u, ok := st.Get(Users, tools.Text(args["user_id"])); ok {
			return u, nil
		}
		return nil, errors.New("user not found")
	},
}}

// starPack is a pack of generator source under a manifest.
func starPack(manifest string, src []byte) fstest.MapFS {
	return fstest.MapFS{
		"domain.yaml":    {Data: []byte(manifest)},
		"policy.md":      {Data: []byte("Be helpful.\n")},
		"tools.json":     {Data: []byte(starTools)},
		"generator.star": {Data: src},
	}
}

func starSource(t testing.TB) []byte {
	t.Helper()
	src, err := os.ReadFile("generator.star")
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// loadStar loads the retail generator's pack for a seed and says how long
// it took (the generator is nearly all of it).
func loadStar(t testing.TB, seed uint64, lim pack.Limits) (*pack.Pack, time.Duration) {
	t.Helper()
	start := time.Now()
	p, err := pack.Load(context.Background(), starPack(starManifest, starSource(t)), seed, pack.Options{Limits: lim, Builtins: starBuiltins})
	if err != nil {
		t.Fatalf("load generator.star with seed %d: %v", seed, err)
	}
	return p, time.Since(start)
}

// starDB decodes a generated base into the DB gen.go builds, indexes
// included, refusing fields DB does not know.
func starDB(t *testing.T, b *tools.Base) *DB {
	t.Helper()
	db := &DB{
		Users:       map[string]*User{},
		Orders:      map[string]*Order{},
		Products:    map[string]*Product{},
		UserIDs:     slices.Clone(b.Keys(Users)),
		OrderIDs:    slices.Clone(b.Keys(Orders)),
		ProductIDs:  slices.Clone(b.Keys(Products)),
		ByEmail:     map[string]string{},
		ByNameZip:   map[string]string{},
		ItemProduct: map[string]string{},
	}
	decode := func(coll, key string, into any) {
		v, _ := b.Get(coll, key)
		raw, err := json.Marshal(v)
		if err == nil {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			err = dec.Decode(into)
		}
		if err != nil {
			t.Fatalf("%s %s: %v", coll, key, err)
		}
	}
	for _, id := range db.ProductIDs {
		p := new(Product)
		decode(Products, id, p)
		db.Products[id] = p
		for iid := range p.Variants {
			db.ItemProduct[iid] = id
		}
	}
	for _, id := range db.UserIDs {
		u := new(User)
		decode(Users, id, u)
		db.Users[id] = u
		db.ByEmail[u.Email] = id
		db.ByNameZip[NameZipKey(u.Name.FirstName, u.Name.LastName, u.Address.Zip)] = id
	}
	for _, id := range db.OrderIDs {
		o := new(Order)
		decode(Orders, id, o)
		db.Orders[id] = o
	}
	return db
}

// checkShare checks that n/total is within tol of want.
func checkShare(t *testing.T, what string, n, total int, want, tol float64) {
	t.Helper()
	got := float64(n) / float64(total)
	if math.Abs(got-want) > tol {
		t.Errorf("%s: %d of %d (%.3f), want %.3f ± %.3f", what, n, total, got, want, tol)
	}
}

// shares are a distribution's weights as shares of their sum.
func shares(w ...int) []float64 {
	total := 0
	for _, x := range w {
		total += x
	}
	out := make([]float64, len(w))
	for i, x := range w {
		out[i] = float64(x) / float64(total)
	}
	return out
}

// checkStarStats checks the statistics gen.go draws with that checkDB
// leaves out.
func checkStarStats(t *testing.T, db *DB) {
	t.Helper()
	words := starWords(t)

	// Payment methods: 1-3 by 45:35:20; credit card 50, gift card 30 and
	// PayPal 20 with a second PayPal turned into a card, so PayPal's share
	// is 0.314/1.75 and the card's the rest.
	methods := 0
	counts := map[int]int{}
	sources := map[string]int{}
	for _, u := range db.Users {
		counts[len(u.PaymentMethods)]++
		methods += len(u.PaymentMethods)
		paypal := 0
		for _, pm := range u.PaymentMethods {
			sources[pm.Source]++
			if pm.Source == SourcePayPal {
				paypal++
			}
		}
		if paypal > 1 {
			t.Errorf("user %s has %d PayPal accounts", u.UserID, paypal)
		}
	}
	for i, want := range shares(45, 35, 20) {
		checkShare(t, "users with "+string(rune('1'+i))+" payment methods", counts[i+1], len(db.Users), want, 0.06)
	}
	paypal := (0.45*0.2 + 0.35*0.36 + 0.2*0.488) / 1.75
	checkShare(t, "gift cards", sources[SourceGiftCard], methods, 0.30, 0.05)
	checkShare(t, "PayPal accounts", sources[SourcePayPal], methods, paypal, 0.05)
	checkShare(t, "credit cards", sources[SourceCreditCard], methods, 0.70-paypal, 0.05)

	// Orders per user: a tenth of the users 8-14 (uniform), the others 1-7
	// by 18:21:20:16:12:7:6.
	perUser := map[int]int{}
	heavy, heavyOrders := 0, 0
	moved := 0
	for _, id := range db.UserIDs {
		u := db.Users[id]
		n := len(u.Orders)
		perUser[n]++
		if n >= 8 {
			heavy++
			heavyOrders += n
		}
		// Orders to an old address were placed first and all go to the
		// same one. The user's list is shuffled, so walk it by date.
		byDate := slices.SortedFunc(slices.Values(u.Orders), func(a, b string) int {
			return strings.Compare(db.Orders[a].CreatedAt, db.Orders[b].CreatedAt)
		})
		var old *Address
		current := false
		for _, oid := range byDate {
			a := db.Orders[oid].Address
			switch {
			case a == u.Address:
				current = true
			case current || (old != nil && a != *old):
				t.Errorf("user %s: order %s goes to %+v after an order to another address", id, oid, a)
			case old == nil:
				old = &a
				moved++
			}
		}
	}
	if want := int(float64(numUsers) * heavyUserShare); heavy != want {
		t.Errorf("%d users with 8+ orders, want %d", heavy, want)
	}
	if heavy > 0 {
		if mean := float64(heavyOrders) / float64(heavy); mean < 10 || mean > 12 {
			t.Errorf("heavy users have %.2f orders on average, want about 11", mean)
		}
	}
	for i, want := range shares(18, 21, 20, 16, 12, 7, 6) {
		checkShare(t, "other users with "+string(rune('1'+i))+" orders", perUser[i+1], len(db.Users)-heavy, want, 0.06)
	}
	// 15% of users moved, after one or more of their orders.
	checkShare(t, "users whose first order went to an old address", moved, len(db.Users), 0.15, 0.06)

	// Items per order 1-5 by 30:30:20:12:8, some with a second variant of
	// a product; fulfillments ship all items.
	items := map[int]int{}
	twice := 0
	first, last := "9999", ""
	for _, oid := range db.OrderIDs {
		o := db.Orders[oid]
		items[len(o.Items)]++
		products := map[string]bool{}
		var ids []string
		second := false
		for _, it := range o.Items {
			second = second || products[it.ProductID]
			products[it.ProductID] = true
			ids = append(ids, it.ItemID)
		}
		if second {
			twice++
		}
		for _, f := range o.Fulfillments {
			if len(f.TrackingID) != 1 || !slices.Equal(f.ItemIDs, ids) {
				t.Errorf("order %s: fulfillment %+v does not ship its items %v under one tracking id", oid, f, ids)
			}
		}
		day := o.CreatedAt[:10]
		first, last = min(first, day), max(last, day)
	}
	for i, want := range shares(30, 30, 20, 12, 8) {
		checkShare(t, "orders with "+string(rune('1'+i))+" items", items[i+1], len(db.Orders), want, 0.04)
	}
	checkShare(t, "orders with two variants of a product", twice, len(db.Orders), 0.09, 0.05)
	t.Logf("%d methods (%d gift cards, %d PayPal), %d heavy users, %d moved, %d orders with a second variant, orders %s to %s",
		methods, sources[SourceGiftCard], sources[SourcePayPal], heavy, moved, twice, first, last)
	if first != "2024-01-02" || last != "2024-05-14" {
		t.Errorf("orders from %s to %s, want 2024-01-02 to 2024-05-14", first, last)
	}

	// Products: the word list's, each variant a combination of its
	// options priced within the range gen.go's price model allows.
	specs := map[string]productSpec{}
	for _, s := range words.Products {
		specs[s.Name] = s
	}
	for _, pid := range db.ProductIDs {
		p := db.Products[pid]
		spec, ok := specs[p.Name]
		if !ok {
			t.Errorf("product %s: %q is not one of generator.star's PRODUCTS", pid, p.Name)
			continue
		}
		delete(specs, p.Name)
		lo, hi := spec.Price[0]/0.85, spec.Price[1]/1.25
		if hi < lo {
			lo, hi = (lo+hi)/2, (lo+hi)/2
		}
		pmin, pmax := math.Max(1, lo*0.85*0.98)-0.01, hi*1.25*1.02+0.01
		cheapest, dearest := math.Inf(1), 0.0
		for iid, v := range p.Variants {
			cheapest, dearest = min(cheapest, v.Price), max(dearest, v.Price)
			if v.Price < pmin || v.Price > pmax {
				t.Errorf("%s %s: price %.2f outside %.2f-%.2f", p.Name, iid, v.Price, pmin, pmax)
			}
			if len(v.Options) != len(spec.Options) {
				t.Errorf("%s %s: options %v, want the dimensions of %v", p.Name, iid, v.Options, spec.Options)
			}
			for _, o := range spec.Options {
				if !slices.Contains(o.Values, v.Options[o.Name]) {
					t.Errorf("%s %s: option %s = %q, want one of %v", p.Name, iid, o.Name, v.Options[o.Name], o.Values)
				}
			}
		}
		// One base price moved by -15%..+25% for the options and ±2%.
		if spread := (1.25 * 1.02) / (0.85 * 0.98); dearest > cheapest*spread+0.02 {
			t.Errorf("%s: prices %.2f to %.2f, more than one base price's options allow", p.Name, cheapest, dearest)
		}
	}
	if len(specs) > 0 {
		t.Errorf("products missing: %v", slices.Sorted(maps.Keys(specs)))
	}
}

// checkTau2Shapes validates every record against the JSON Schema of
// tau2-bench's retail records.
func checkTau2Shapes(t *testing.T, b *tools.Base) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "tau2_retail.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const url = "file:///tau2_retail.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	for coll, def := range map[string]string{Users: "user", Orders: "order", Products: "product"} {
		sch, err := c.Compile(url + "#/$defs/" + def)
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for _, key := range b.Keys(coll) {
			v, _ := b.Get(coll, key)
			raw, _ := json.Marshal(v)
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err == nil {
				err = sch.Validate(inst)
			}
			if err != nil {
				if bad++; bad <= 3 {
					t.Errorf("%s %s is not a tau2 %s: %v", coll, key, def, err)
				}
			}
		}
		if bad > 3 {
			t.Errorf("%s: %d more records are not tau2 %ss", coll, bad-3, def)
		}
	}
}

// TestStarGenerator checks the database generator.star makes: gen.go's
// invariants and statistics, tau2's record shapes, determinism and its
// cost against the generator step limit.
func TestStarGenerator(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	// A twentieth of the step limit must do (it takes about 3.3M steps).
	lim := pack.DefaultLimits()
	lim.GeneratorSteps /= 20
	p7, d7 := loadStar(t, 7, lim)
	p1, d1 := loadStar(t, 1, pack.DefaultLimits())
	t.Logf("generator.star: seed 7 took %v, seed 1 %v (pack load included), %d users, %d orders, %d products",
		d7.Round(time.Millisecond), d1.Round(time.Millisecond),
		len(p1.Base.Keys(Users)), len(p1.Base.Keys(Orders)), len(p1.Base.Keys(Products)))
	if d1 > 20*time.Second {
		t.Errorf("generation took %v", d1)
	}

	again, _ := loadStar(t, 7, pack.DefaultLimits())
	if again.Base.Hash() != p7.Base.Hash() {
		t.Error("seed 7 twice gave different databases")
	}
	if p1.Base.Hash() == p7.Base.Hash() {
		t.Error("seeds 1 and 7 gave the same database")
	}
	a, b := starDB(t, p1.Base), starDB(t, p7.Base)
	if slices.Equal(a.UserIDs, b.UserIDs) || slices.Equal(a.OrderIDs, b.OrderIDs) || slices.Equal(a.ProductIDs, b.ProductIDs) {
		t.Error("seeds 1 and 7 gave the same user, order or product ids")
	}

	for _, c := range []struct {
		name string
		p    *pack.Pack
		db   *DB
	}{{"seed1", p1, a}, {"seed7", p7, b}} {
		t.Run(c.name, func(t *testing.T) {
			checkDB(t, c.db)
			checkStarStats(t, c.db)
			checkTau2Shapes(t, c.p.Base)
			uid := c.db.UserIDs[0]
			st := c.p.Base.NewState()
			res := c.p.Tools.Call(context.Background(), st, "get_user_details", `{"user_id": "`+uid+`"}`)
			if res.Err || !strings.Contains(res.Output, `"user_id":"`+uid+`"`) {
				t.Errorf("get_user_details: %+v", res)
			}
		})
	}
}

// shapesWrapper replaces the generator's generate with one that returns,
// instead of the database, the field order of every kind of record in it
// and the word lists, so the test sees what only Starlark dicts keep.
const shapesWrapper = `

def _shape(seen, kind, rec):
    seen[kind + ": " + ", ".join(list(rec.keys()))] = True

def generate(seed):
    db = _retail_generate(seed)
    seen = {}
    for u in db["users"].values():
        _shape(seen, "user", u)
        _shape(seen, "name", u["name"])
        _shape(seen, "address", u["address"])
        for pm in u["payment_methods"].values():
            _shape(seen, pm["source"], pm)
    for o in db["orders"].values():
        _shape(seen, "order", o)
        _shape(seen, "address", o["address"])
        for it in o["items"]:
            _shape(seen, "item", it)
        for f in o["fulfillments"]:
            _shape(seen, "fulfillment", f)
        for p in o["payment_history"]:
            _shape(seen, "payment", p)
    for p in db["products"].values():
        _shape(seen, "product", p)
        for v in p["variants"].values():
            _shape(seen, "variant", v)
    words = {
        "id": "words",
        "first": FIRST_NAMES,
        "last": LAST_NAMES,
        "streets": STREETS,
        "cities": [list(c) for c in CITIES],
        "products": [
            {"name": p[0], "price": [p[1], p[2]], "options": [{"name": o[0], "values": o[1]} for o in p[3]]}
            for p in PRODUCTS
        ],
    }
    return {"shapes": {k: {"shape": k} for k in seen}, "words": {"words": words}}
`

const shapesManifest = `name: retailgen-shapes
version: "1"
clock: "2024-05-15T15:00:00-05:00"
handlers: builtin:retailgen
generator: generator.star
collections:
  shapes:
    key: shape
  words:
    key: id
`

// starWordList is what generator.star draws from.
type starWordList struct {
	First, Last, Streets []string
	Cities               [][3]string
	Products             []productSpec
}

// shapesPack runs generator.star under shapesWrapper: the field order of
// every kind of record it makes, and its word lists.
func shapesPack(t *testing.T) *pack.Pack {
	t.Helper()
	src := string(starSource(t))
	const def = "\ndef generate(seed):\n"
	if strings.Count(src, def) != 1 {
		t.Fatalf("generator.star does not define generate once as %q", def)
	}
	src = strings.Replace(src, def, "\ndef _retail_generate(seed):\n", 1) + shapesWrapper
	p, err := pack.Load(context.Background(), starPack(shapesManifest, []byte(src)), 3, pack.Options{Builtins: starBuiltins})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// starWords reads generator.star's word lists.
func starWords(t *testing.T) starWordList {
	t.Helper()
	v, _ := shapesPack(t).Base.Get("words", "words")
	raw, _ := json.Marshal(v)
	var got starWordList
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestStarGeneratorShapes checks the field order of the generated records
// against tau2's db.json, and that the word lists make enough distinct
// people, places and products.
func TestStarGeneratorShapes(t *testing.T) {
	p := shapesPack(t)
	want := []string{
		"address: address1, address2, city, country, state, zip",
		"credit_card: source, id, brand, last_four",
		"fulfillment: tracking_id, item_ids",
		"gift_card: source, id, balance",
		"item: name, product_id, item_id, price, options",
		"name: first_name, last_name",
		"order: order_id, user_id, address, items, status, fulfillments, payment_history, cancel_reason, " +
			"exchange_items, exchange_new_items, exchange_payment_method_id, exchange_price_difference, " +
			"return_items, return_payment_method_id, created_at",
		"payment: transaction_type, amount, payment_method_id",
		"paypal: source, id",
		"product: name, product_id, variants",
		"user: user_id, name, address, email, payment_methods, orders",
		"variant: item_id, options, available, price",
	}
	if got := p.Base.Keys("shapes"); !slices.Equal(got, want) {
		t.Errorf("record fields:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	w := starWords(t)
	distinct := func(name string, xs []string, atLeast int) {
		seen := map[string]bool{}
		for _, x := range xs {
			if seen[x] {
				t.Errorf("%s lists %q twice", name, x)
			}
			seen[x] = true
		}
		if len(xs) < atLeast {
			t.Errorf("%s has %d entries, want at least %d", name, len(xs), atLeast)
		}
	}
	distinct("FIRST_NAMES", w.First, 200)
	distinct("LAST_NAMES", w.Last, 200)
	distinct("STREETS", w.Streets, 50)
	var names []string
	for _, p := range w.Products {
		names = append(names, p.Name)
		if p.combinations() < minVariants {
			t.Errorf("product %s has only %d option combinations, need %d", p.Name, p.combinations(), minVariants)
		}
	}
	distinct("PRODUCTS", names, 50)
	if len(w.Cities) < 50 {
		t.Errorf("CITIES has %d entries", len(w.Cities))
	}
}
