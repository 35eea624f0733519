package retail

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

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

// generator carries the state of one Generate call.
type generator struct {
	rng   *rand.Rand
	words *wordLists
	ids   map[string]bool // every id handed out, across kinds
	db    *DB
	// productIDs and variants list ids in generation order, because
	// drawing from a map's iteration order would not be deterministic.
	productIDs []string
	variants   map[string][]string
}

// Generate builds the database for a seed. The same seed always yields the
// same database: all randomness comes from one PCG stream and nothing
// depends on map iteration order or the wall clock.
func Generate(seed uint64) (*DB, error) {
	words, err := loadWords()
	if err != nil {
		return nil, fmt.Errorf("retail: %w", err)
	}
	g := &generator{
		rng:   rand.New(rand.NewPCG(seed, 0x5eed)),
		words: words,
		ids:   make(map[string]bool),
		db: &DB{
			Users:       make(map[string]*User, numUsers),
			Orders:      make(map[string]*Order, numUsers*4),
			Products:    make(map[string]*Product, len(words.products)),
			ByEmail:     make(map[string]string, numUsers),
			ByNameZip:   make(map[string]string, numUsers),
			ItemProduct: make(map[string]string),
		},
		variants: make(map[string][]string, len(words.products)),
	}
	if err := g.products(); err != nil {
		return nil, fmt.Errorf("retail: %w", err)
	}
	users := g.users()
	g.orders(users)

	db := g.db
	db.UserIDs = slices.Sorted(maps.Keys(db.Users))
	db.OrderIDs = slices.Sorted(maps.Keys(db.Orders))
	db.ProductIDs = slices.Sorted(maps.Keys(db.Products))
	return db, nil
}

// digits returns a random n-digit decimal string without a leading zero.
func (g *generator) digits(n int) string {
	lo := int64(math.Pow10(n - 1))
	return strconv.FormatInt(lo+g.rng.Int64N(9*lo), 10)
}

// newID returns prefix+digits, unique among all ids generated so far.
func (g *generator) newID(prefix string, n int) string {
	for {
		id := prefix + g.digits(n)
		if !g.ids[id] {
			g.ids[id] = true
			return id
		}
	}
}

// pick returns a uniformly drawn element.
func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// weighted draws an index with probability proportional to its weight.
func weighted(r *rand.Rand, w []int) int {
	total := 0
	for _, x := range w {
		total += x
	}
	n := r.IntN(total)
	for i, x := range w {
		if n < x {
			return i
		}
		n -= x
	}
	return len(w) - 1
}

func (g *generator) products() error {
	for _, spec := range g.words.products {
		n := spec.combinations()
		if n < minVariants {
			return fmt.Errorf("product %s has only %d option combinations, need %d", spec.Name, n, minVariants)
		}
		p := &Product{
			Name:      spec.Name,
			ProductID: g.newID("", 10),
			Variants:  make(map[string]Variant),
		}
		// Each option value moves the price by a fixed share, so variants
		// that differ in one option differ in price consistently (the i9
		// laptop always costs more than its i5 twin). The shares add up
		// to at most -15%..+25%, and the base leaves room for them, so
		// prices stay within the product's realistic range.
		const down, up = 0.15, 0.25
		lo, hi := spec.Price[0]/(1-down), spec.Price[1]/(1+up)
		if hi < lo {
			lo, hi = (lo+hi)/2, (lo+hi)/2
		}
		base := lo + (hi-lo)*g.rng.Float64()
		delta := make([][]float64, len(spec.Options))
		dims := float64(len(spec.Options))
		for d, o := range spec.Options {
			delta[d] = make([]float64, len(o.Values))
			for v := range o.Values {
				delta[d][v] = (-down + (down+up)*g.rng.Float64()) / dims
			}
		}
		k := min(minVariants+g.rng.IntN(maxVariants-minVariants+1), n)
		combos := g.rng.Perm(n)[:k]
		available := 0
		ids := make([]string, 0, k)
		for _, c := range combos {
			opts := make(map[string]string, len(spec.Options))
			factor := 1.0
			// Decode the combination index in mixed radix, one digit per dimension.
			for d, o := range spec.Options {
				v := c % len(o.Values)
				c /= len(o.Values)
				opts[o.Name] = o.Values[v]
				factor += delta[d][v]
			}
			factor *= 0.98 + 0.04*g.rng.Float64()
			v := Variant{
				ItemID:    g.newID("", 10),
				Options:   opts,
				Available: g.rng.Float64() < availableShare,
				Price:     RoundCents(max(base*factor, 1)),
			}
			if v.Available {
				available++
			}
			p.Variants[v.ItemID] = v
			ids = append(ids, v.ItemID)
			g.db.ItemProduct[v.ItemID] = p.ProductID
		}
		for _, id := range ids {
			if available >= minAvailable {
				break
			}
			if v := p.Variants[id]; !v.Available {
				v.Available = true
				p.Variants[id] = v
				available++
			}
		}
		g.db.Products[p.ProductID] = p
		g.productIDs = append(g.productIDs, p.ProductID)
		g.variants[p.ProductID] = ids
	}
	return nil
}

// userDraft is a user plus what order generation needs to know about them.
type userDraft struct {
	u       *User
	oldAddr *Address // a previous address some early orders shipped to
	pms     []string // payment method ids in creation order
}

func (g *generator) address(c city) Address {
	a := Address{
		Address1: fmt.Sprintf("%d %s", 100+g.rng.IntN(9900), pick(g.rng, g.words.streets)),
		City:     c.Name,
		Country:  "USA",
		State:    c.State,
		Zip:      c.ZipPrefix + fmt.Sprintf("%02d", g.rng.IntN(100)),
	}
	switch weighted(g.rng, []int{50, 20, 30}) {
	case 0:
		a.Address2 = fmt.Sprintf("Suite %d", 100+g.rng.IntN(900))
	case 1:
		a.Address2 = fmt.Sprintf("Apt %d", 1+g.rng.IntN(40))
	}
	return a
}

func (g *generator) users() []userDraft {
	out := make([]userDraft, 0, numUsers)
	for len(out) < numUsers {
		first := pick(g.rng, g.words.first)
		last := pick(g.rng, g.words.last)
		addr := g.address(pick(g.rng, g.words.cities))
		key := NameZipKey(first, last, addr.Zip)
		if _, taken := g.db.ByNameZip[key]; taken {
			continue // name+zip must identify one user
		}
		var uid, suffix string
		for {
			suffix = g.digits(4)
			uid = strings.ToLower(first + "_" + last + "_" + suffix)
			if !g.ids[uid] {
				g.ids[uid] = true
				break
			}
		}
		u := &User{
			UserID:         uid,
			Name:           PersonName{FirstName: first, LastName: last},
			Address:        addr,
			Email:          strings.ToLower(first+"."+last) + suffix + "@example.com",
			PaymentMethods: make(map[string]PaymentMethod),
		}
		d := userDraft{u: u}
		if g.rng.Float64() < 0.15 {
			old := g.address(pick(g.rng, g.words.cities))
			d.oldAddr = &old
		}
		n := 1 + weighted(g.rng, []int{45, 35, 20})
		hasPayPal := false
		for range n {
			var pm PaymentMethod
			src := weighted(g.rng, []int{50, 30, 20})
			if src == 2 && hasPayPal {
				src = 0 // one PayPal account per user
			}
			switch src {
			case 0:
				pm = PaymentMethod{
					Source:   SourceCreditCard,
					ID:       g.newID(SourceCreditCard+"_", 7),
					Brand:    pick(g.rng, []string{"visa", "mastercard", "amex", "discover"}),
					LastFour: fmt.Sprintf("%04d", g.rng.IntN(10000)),
				}
			case 1:
				bal := RoundCents(500 * g.rng.Float64())
				pm = PaymentMethod{Source: SourceGiftCard, ID: g.newID(SourceGiftCard+"_", 7), Balance: &bal}
			default:
				hasPayPal = true
				pm = PaymentMethod{Source: SourcePayPal, ID: g.newID(SourcePayPal+"_", 7)}
			}
			u.PaymentMethods[pm.ID] = pm
			d.pms = append(d.pms, pm.ID)
		}
		g.db.Users[uid] = u
		g.db.ByEmail[u.Email] = uid
		g.db.ByNameZip[key] = uid
		out = append(out, d)
	}
	return out
}

func (g *generator) orders(users []userDraft) {
	// Orders were placed from 2024-01-02 up to the day before the clock.
	start := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	span := int64(time.Date(2024, 5, 15, 0, 0, 0, 0, time.UTC).Sub(start) / time.Second)
	// A fixed share of users order a lot: tasks with a high read intensity
	// ("my most expensive pending order") need many orders to compare.
	heavy := make([]bool, len(users))
	for _, i := range g.rng.Perm(len(users))[:int(float64(len(users))*heavyUserShare)] {
		heavy[i] = true
	}
	for i, d := range users {
		var n int
		if heavy[i] {
			n = 8 + g.rng.IntN(7)
		} else {
			n = 1 + weighted(g.rng, []int{18, 21, 20, 16, 12, 7, 6})
		}
		stamps := make([]string, 0, n)
		seen := make(map[int64]bool, n)
		for len(stamps) < n {
			s := g.rng.Int64N(span)
			if seen[s] {
				continue
			}
			seen[s] = true
			stamps = append(stamps, start.Add(time.Duration(s)*time.Second).Format(TimeLayout))
		}
		slices.Sort(stamps) // the layout sorts lexically in time order
		oldUntil := 0
		if d.oldAddr != nil {
			oldUntil = 1 + g.rng.IntN(n)
		}
		for j, at := range stamps {
			addr := d.u.Address
			if j < oldUntil {
				addr = *d.oldAddr
			}
			o := g.order(d, at, addr)
			g.db.Orders[o.OrderID] = o
			d.u.Orders = append(d.u.Orders, o.OrderID)
		}
	}
}

func (g *generator) order(d userDraft, at string, addr Address) *Order {
	statuses := []string{StatusPending, StatusProcessed, StatusDelivered, StatusCancelled}
	o := &Order{
		OrderID:      g.newID("#W", 7),
		UserID:       d.u.UserID,
		CreatedAt:    at,
		Address:      addr,
		Status:       statuses[weighted(g.rng, []int{30, 15, 40, 15})],
		Fulfillments: []Fulfillment{}, // [] rather than null in the JSON the agent reads
	}
	n := 1 + weighted(g.rng, []int{30, 30, 20, 12, 8})
	usedProduct := make(map[string]bool, n)
	usedItem := make(map[string]bool, n)
	total := 0.0
	for len(o.Items) < n {
		var pid string
		if len(o.Items) > 0 && g.rng.Float64() < 0.08 {
			// Occasionally a second variant of a product already in the order.
			pid = o.Items[g.rng.IntN(len(o.Items))].ProductID
		} else {
			pid = pick(g.rng, g.productIDs)
			if usedProduct[pid] {
				continue
			}
		}
		iid := pick(g.rng, g.variants[pid])
		if usedItem[iid] {
			continue
		}
		usedProduct[pid], usedItem[iid] = true, true
		p := g.db.Products[pid]
		v := p.Variants[iid]
		o.Items = append(o.Items, OrderItem{
			Name:      p.Name,
			ProductID: pid,
			ItemID:    iid,
			Price:     v.Price,
			Options:   maps.Clone(v.Options),
		})
		total += v.Price
	}
	total = RoundCents(total)
	pm := pick(g.rng, d.pms)
	o.PaymentHistory = []Payment{{TransactionType: "payment", Amount: total, PaymentMethodID: pm}}
	switch o.Status {
	case StatusCancelled:
		o.CancelReason = pick(g.rng, []string{ReasonNoLongerNeeded, ReasonMistake})
		o.PaymentHistory = append(o.PaymentHistory, Payment{TransactionType: "refund", Amount: total, PaymentMethodID: pm})
	case StatusProcessed, StatusDelivered:
		ids := make([]string, len(o.Items))
		for i, it := range o.Items {
			ids[i] = it.ItemID
		}
		o.Fulfillments = []Fulfillment{{TrackingID: []string{g.newID("", 12)}, ItemIDs: ids}}
	}
	return o
}
