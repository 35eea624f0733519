package tau2

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Random call streams for the fidelity test: arguments drawn from the
// database (ids that exist, statuses that fit, balances that cover) mixed
// with ones that do not (unknown ids, wrong statuses, bad item ids,
// mismatched lists, short balances, wrong cabins, malformed list items,
// an unexpected argument), all valid for the tools' JSON Schemas so that
// they reach the handlers.

// obj is a JSON object whose keys keep their order, as an agent writes
// them (τ²'s messages repr a dict in its order).
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type gen struct {
	r   *rand.Rand
	e   *env
	err error // the first argument that did not encode
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func pick[T any](g *gen, l []T) T { return l[g.r.IntN(len(l))] }

func (g *gen) rec(coll, key string) map[string]any {
	v, _ := g.e.base.Get(coll, key)
	m, _ := v.(map[string]any)
	return m
}

// keys are a collection's keys in db.json's order, or sorted for a
// database without that order (one a generator made).
func (g *gen) keys(coll string) []string {
	v, ok := g.e.base.Get(OrderCollection, coll)
	if !ok {
		return g.e.base.Keys(coll)
	}
	var out []string
	for _, k := range v.(map[string]any)["keys"].([]any) {
		out = append(out, k.(string))
	}
	return out
}

// junkID is an id that exists nowhere, shaped like a real one or not.
func (g *gen) junkID(like string) string {
	switch g.r.IntN(4) {
	case 0:
		return ""
	case 1:
		return strings.ToUpper(like)
	case 2:
		return like + "0"
	}
	return fmt.Sprintf("x%d", g.r.IntN(100000))
}

func (g *gen) orMaybe(p float64, good string) string {
	if g.chance(p) {
		return g.junkID(good)
	}
	return good
}

var words = []string{"Main St", "Apt 4", "Springfield", "CA", "USA", "Østre gate", "日本橋", "O'Hara", `say "hi"`, "Suite\t9", "", "12345", "São Paulo", "ΣΟΦΙΑ"}

func (g *gen) text() string {
	n := g.r.IntN(3) + 1
	parts := make([]string, n)
	for i := range parts {
		parts[i] = pick(g, words)
	}
	return strings.Join(parts, " ")
}

// recase changes the case of some letters (τ²'s lookups lowercase both sides).
func (g *gen) recase(s string) string {
	rs := []rune(s)
	for i, r := range rs {
		if g.chance(0.3) {
			if unicode.IsUpper(r) {
				rs[i] = unicode.ToLower(r)
			} else {
				rs[i] = unicode.ToUpper(r)
			}
		}
	}
	return string(rs)
}

// expr is an arithmetic expression: mostly well formed, sometimes not.
func (g *gen) expr() string {
	if g.chance(0.2) {
		const alphabet = "0123456789+-*/(). "
		n := g.r.IntN(12) + 1
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[g.r.IntN(len(alphabet))]
		}
		if g.chance(0.1) {
			return string(b) + "x"
		}
		return string(b)
	}
	return g.term(3)
}

func (g *gen) term(depth int) string {
	if depth == 0 || g.chance(0.3) {
		switch g.r.IntN(6) {
		case 0:
			return strconv.Itoa(g.r.IntN(1000))
		case 1:
			return "0"
		case 2:
			return fmt.Sprintf("%d.%02d", g.r.IntN(5000), g.r.IntN(100))
		case 3:
			return "." + strconv.Itoa(g.r.IntN(100))
		case 4:
			return strconv.Itoa(g.r.IntN(20)) + "."
		}
		return strconv.Itoa(g.r.IntN(10))
	}
	ops := []string{" + ", " - ", " * ", " / ", "*", "-", " // ", " ** "}
	op := pick(g, ops)
	if op == " ** " {
		return g.term(0) + op + strconv.Itoa(g.r.IntN(12)-3)
	}
	s := g.term(depth-1) + op + g.term(depth-1)
	switch {
	case g.chance(0.25):
		s = "(" + s + ")"
	case g.chance(0.05):
		s = "-" + s
	case g.chance(0.03):
		s = "(" + s
	}
	return s
}

// extra sometimes adds an argument no τ² tool takes.
func (g *gen) extra(o obj) obj {
	if g.chance(0.03) {
		return append(o, kv{pick(g, []string{"note", "confirm", "force"}), true})
	}
	return o
}

func (g *gen) call(name string, o obj) oracleCall {
	raw, err := json.Marshal(g.extra(o))
	if err != nil && g.err == nil {
		g.err = fmt.Errorf("%s: %w", name, err)
	}
	return oracleCall{Name: name, Args: raw}
}

// Retail.

type retailGen struct {
	gen
	users, orders, products []string
	pending, delivered      []string
	dupNames                [][]string // users sharing first and last name
}

func newRetailGen(e *env, seed uint64) *retailGen {
	g := &retailGen{gen: gen{r: rand.New(rand.NewPCG(seed, 7)), e: e}}
	g.users, g.orders, g.products = g.keys("users"), g.keys("orders"), g.keys("products")
	for _, k := range g.orders {
		switch g.rec("orders", k)["status"] {
		case "pending":
			g.pending = append(g.pending, k)
		case "delivered":
			g.delivered = append(g.delivered, k)
		}
	}
	byName := map[string][]string{}
	for _, k := range g.users {
		n := g.rec("users", k)["name"].(map[string]any)
		key := strings.ToLower(n["first_name"].(string) + " " + n["last_name"].(string))
		byName[key] = append(byName[key], k)
	}
	for _, k := range sortedKeys(byName) {
		if len(byName[k]) > 1 {
			g.dupNames = append(g.dupNames, byName[k])
		}
	}
	return g
}

func (g *retailGen) orderOf(pool []string, p float64) string {
	if g.chance(p) && len(pool) > 0 {
		return pick(&g.gen, pool)
	}
	return g.orMaybe(0.2, pick(&g.gen, g.orders))
}

func (g *retailGen) paymentOf(orderID string) string {
	o := g.rec("orders", orderID)
	if o == nil || g.chance(0.1) {
		return g.junkID("gift_card_0000000")
	}
	u := g.rec("users", o["user_id"].(string))
	pms := sortedKeys(u["payment_methods"].(map[string]any))
	if hist := o["payment_history"].([]any); len(hist) > 0 && g.chance(0.4) {
		return hist[0].(map[string]any)["payment_method_id"].(string)
	}
	return pick(&g.gen, pms)
}

// itemPairs picks old item ids of an order and new ids of the same
// products, with the usual ways of getting them wrong.
func (g *retailGen) itemPairs(orderID string) ([]string, []string) {
	o := g.rec("orders", orderID)
	if o == nil {
		return []string{g.junkID("1008292230")}, []string{g.junkID("1008292230")}
	}
	items := o["items"].([]any)
	n := g.r.IntN(3) + 1
	var olds, news []string
	for range n {
		it := pick(&g.gen, items).(map[string]any)
		old := it["item_id"].(string)
		if g.chance(0.07) {
			old = g.junkID(old)
		}
		prod := it["product_id"].(string)
		if g.chance(0.08) {
			prod = pick(&g.gen, g.products)
		}
		vars := sortedKeys(g.rec("products", prod)["variants"].(map[string]any))
		nw := pick(&g.gen, vars)
		if g.chance(0.05) {
			nw = g.junkID(nw)
		}
		olds, news = append(olds, old), append(news, nw)
	}
	if g.chance(0.05) {
		news = news[:len(news)-1]
	}
	if g.chance(0.04) {
		return []string{}, []string{}
	}
	return olds, news
}

func (g *retailGen) address(first string, id string) obj {
	zip := strconv.Itoa(10000 + g.r.IntN(90000))
	if g.chance(0.3) && len(g.dupNames) > 0 {
		// Give a namesake's zip, so a name-and-zip lookup has two matches
		// and τ²'s first-in-db-order one must win.
		group := pick(&g.gen, g.dupNames)
		zip = g.rec("users", pick(&g.gen, group))["address"].(map[string]any)["zip"].(string)
	}
	return obj{{first, id}, {"address1", g.text()}, {"address2", g.text()}, {"city", g.text()}, {"state", g.text()}, {"country", g.text()}, {"zip", zip}}
}

func (g *retailGen) next() oracleCall {
	gg := &g.gen
	switch g.r.IntN(17) {
	case 0:
		return g.call("calculate", obj{{"expression", g.expr()}})
	case 1:
		reason := pick(gg, []string{"no longer needed", "ordered by mistake"})
		if g.chance(0.15) {
			reason = g.text()
		}
		return g.call("cancel_pending_order", obj{{"order_id", g.orderOf(g.pending, 0.7)}, {"reason", reason}})
	case 2:
		o := g.orderOf(g.delivered, 0.75)
		olds, news := g.itemPairs(o)
		return g.call("exchange_delivered_order_items", obj{{"order_id", o}, {"item_ids", olds}, {"new_item_ids", news}, {"payment_method_id", g.paymentOf(o)}})
	case 3:
		var u map[string]any
		if g.chance(0.3) && len(g.dupNames) > 0 {
			u = g.rec("users", pick(gg, pick(gg, g.dupNames)))
		} else {
			u = g.rec("users", pick(gg, g.users))
		}
		n := u["name"].(map[string]any)
		zip := u["address"].(map[string]any)["zip"].(string)
		if g.chance(0.15) {
			zip = g.junkID(zip)
		}
		return g.call("find_user_id_by_name_zip", obj{{"first_name", g.recase(n["first_name"].(string))}, {"last_name", g.recase(n["last_name"].(string))}, {"zip", zip}})
	case 4:
		email := g.rec("users", pick(gg, g.users))["email"].(string)
		return g.call("find_user_id_by_email", obj{{"email", g.orMaybe(0.15, g.recase(email))}})
	case 5:
		return g.call("get_order_details", obj{{"order_id", g.orMaybe(0.2, pick(gg, g.orders))}})
	case 6:
		return g.call("get_product_details", obj{{"product_id", g.orMaybe(0.2, pick(gg, g.products))}})
	case 7:
		p := g.rec("products", pick(gg, g.products))
		id := pick(gg, sortedKeys(p["variants"].(map[string]any)))
		if g.chance(0.2) {
			id = p["product_id"].(string) // a product id where an item id belongs
		}
		return g.call("get_item_details", obj{{"item_id", g.orMaybe(0.1, id)}})
	case 8:
		return g.call("get_user_details", obj{{"user_id", g.orMaybe(0.2, pick(gg, g.users))}})
	case 9:
		return g.call("list_all_product_types", obj{})
	case 10:
		return g.call("modify_pending_order_address", g.address("order_id", g.orderOf(g.pending, 0.75)))
	case 11:
		o := g.orderOf(g.pending, 0.8)
		olds, news := g.itemPairs(o)
		return g.call("modify_pending_order_items", obj{{"order_id", o}, {"item_ids", olds}, {"new_item_ids", news}, {"payment_method_id", g.paymentOf(o)}})
	case 12:
		o := g.orderOf(g.pending, 0.8)
		return g.call("modify_pending_order_payment", obj{{"order_id", o}, {"payment_method_id", g.paymentOf(o)}})
	case 13:
		var id string
		if g.chance(0.4) && len(g.dupNames) > 0 {
			id = pick(gg, pick(gg, g.dupNames))
		} else {
			id = g.orMaybe(0.15, pick(gg, g.users))
		}
		return g.call("modify_user_address", g.address("user_id", id))
	case 14:
		o := g.orderOf(g.delivered, 0.75)
		olds, _ := g.itemPairs(o)
		return g.call("return_delivered_order_items", obj{{"order_id", o}, {"item_ids", olds}, {"payment_method_id", g.paymentOf(o)}})
	case 15:
		return g.call("transfer_to_human_agents", obj{{"summary", g.text()}})
	}
	// A second look at an order: reads after writes.
	return g.call("get_order_details", obj{{"order_id", g.orderOf(g.pending, 0.5)}})
}

// Airline.

type airlineGen struct {
	gen
	users, reservations, flights []string
	airports                     []string
	dates                        []string
}

func newAirlineGen(e *env, seed uint64) *airlineGen {
	g := &airlineGen{gen: gen{r: rand.New(rand.NewPCG(seed, 11)), e: e}}
	g.users, g.reservations, g.flights = g.keys("users"), g.keys("reservations"), g.keys("flights")
	seen := map[string]bool{}
	dates := map[string]bool{}
	for _, k := range g.flights {
		f := g.rec("flights", k)
		for _, a := range []string{f["origin"].(string), f["destination"].(string)} {
			if !seen[a] {
				seen[a] = true
				g.airports = append(g.airports, a)
			}
		}
		for d := range f["dates"].(map[string]any) {
			dates[d] = true
		}
	}
	slices.Sort(g.airports)
	g.dates = sortedKeys(dates)
	return g
}

// num is a JSON number literal: an int, or the same value written as a
// float now and then (Python then holds a float).
func (g *airlineGen) num(n int) json.Number {
	if g.chance(0.08) {
		return json.Number(strconv.Itoa(n) + ".0")
	}
	return json.Number(strconv.Itoa(n))
}

func (g *airlineGen) resID() string {
	if g.chance(0.15) {
		return pick(&g.gen, []string{"HATHAT", "HATHAU", "HATHAV"})
	}
	return g.orMaybe(0.12, pick(&g.gen, g.reservations))
}

func (g *airlineGen) date() string {
	if g.chance(0.05) {
		return pick(&g.gen, []string{"2024-05-32", "2024-5-1", "", "2024-06-01"})
	}
	return pick(&g.gen, g.dates)
}

// leg is a flight and a date it flies, mostly an available one.
func (g *airlineGen) leg(from string) (string, string, map[string]any) {
	var cands []string
	for _, k := range g.flights {
		if from == "" || g.rec("flights", k)["origin"] == from {
			cands = append(cands, k)
		}
	}
	if len(cands) == 0 {
		cands = g.flights
	}
	k := pick(&g.gen, cands)
	f := g.rec("flights", k)
	dates := sortedKeys(f["dates"].(map[string]any))
	d := pick(&g.gen, dates)
	for range 5 {
		if f["dates"].(map[string]any)[d].(map[string]any)["status"] == "available" {
			break
		}
		d = pick(&g.gen, dates)
	}
	return k, d, f
}

func (g *airlineGen) passenger() any {
	p := obj{{"first_name", g.recase(pick(&g.gen, []string{"Ana", "Li", "José", "Ömer"}))}, {"last_name", pick(&g.gen, []string{"Smith", "Wu", "O'Neil"})}, {"dob", fmt.Sprintf("19%02d-0%d-1%d", g.r.IntN(100), g.r.IntN(9)+1, g.r.IntN(10))}}
	switch {
	case g.chance(0.03):
		return p[:2] // no dob
	case g.chance(0.03):
		p[2].v = 19900101 // dob not a string
	case g.chance(0.03):
		p = append(p, kv{"seat", "12A"}) // ignored by pydantic
	}
	return p
}

func (g *airlineGen) userPassengers(u map[string]any, n int) []any {
	var out []any
	saved, _ := u["saved_passengers"].([]any)
	for range n {
		if len(saved) > 0 && g.chance(0.6) {
			s := pick(&g.gen, saved).(map[string]any)
			out = append(out, obj{{"first_name", s["first_name"]}, {"last_name", s["last_name"]}, {"dob", s["dob"]}})
			continue
		}
		out = append(out, g.passenger())
	}
	return out
}

func (g *airlineGen) methodOf(u map[string]any, kinds ...string) string {
	var ids []string
	for _, id := range sortedKeys(u["payment_methods"].(map[string]any)) {
		src := u["payment_methods"].(map[string]any)[id].(map[string]any)["source"].(string)
		if len(kinds) == 0 || slices.Contains(kinds, src) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 || g.chance(0.07) {
		return g.junkID("credit_card_0000000")
	}
	return pick(&g.gen, ids)
}

func (g *airlineGen) book() oracleCall {
	gg := &g.gen
	uid := g.orMaybe(0.08, pick(gg, g.users))
	u := g.rec("users", uid)
	if u == nil {
		u = g.rec("users", pick(gg, g.users))
	}
	cabin := pick(gg, cabins())
	k1, d1, f1 := g.leg("")
	legs := [][2]string{{k1, d1}}
	dest := f1["destination"].(string)
	if g.chance(0.35) {
		k2, _, f2 := g.leg(dest)
		legs = append(legs, [2]string{k2, d1})
		dest = f2["destination"].(string)
	}
	if g.chance(0.05) {
		legs = append(legs, legs[0]) // the same flight twice
	}
	n := g.r.IntN(3) + 1
	pax := g.userPassengers(u, n)
	insurance := pick(gg, []string{"yes", "no"})
	total, nonfree := g.r.IntN(4), g.r.IntN(3)
	price := 0
	var flights []any
	for _, l := range legs {
		fo := obj{{"flight_number", l[0]}, {"date", l[1]}}
		switch {
		case g.chance(0.03):
			fo = fo[:1]
		case g.chance(0.02):
			fo = obj{{"flight_number", l[0]}, {"date", 20240501}}
		}
		flights = append(flights, fo)
		inst := g.rec("flights", l[0])["dates"].(map[string]any)[l[1]].(map[string]any)
		if p, ok := inst["prices"].(map[string]any); ok {
			if v, ok := toInt(p[cabin]); ok {
				price += int(v) * n
			}
		}
	}
	if insurance == "yes" {
		price += 30 * n
	}
	price += 50 * nonfree
	if !g.chance(0.7) {
		price += g.r.IntN(200) - 100
	}
	var pays []any
	if g.chance(0.4) {
		// Part from a gift card or certificate, the rest by card.
		part := g.r.IntN(price/2 + 1)
		pays = append(pays, obj{{"payment_id", g.methodOf(u, "gift_card", "certificate")}, {"amount", part}}, obj{{"payment_id", g.methodOf(u, "credit_card")}, {"amount", price - part}})
	} else {
		pays = append(pays, obj{{"payment_id", g.methodOf(u)}, {"amount", price}})
	}
	switch {
	case g.chance(0.03):
		pays[0].(obj)[1].v = strconv.Itoa(price) // "123": pydantic takes it
	case g.chance(0.03):
		pays[0].(obj)[1].v = json.Number(fmt.Sprintf("%d.5", price))
	case g.chance(0.02):
		pays[0] = pays[0].(obj)[:1]
	case g.chance(0.02):
		pays = append(pays, pays[0]) // the same method twice
	}
	origin := f1["origin"].(string)
	if g.chance(0.05) {
		origin = pick(gg, g.airports)
	}
	return g.call("book_reservation", obj{
		{"user_id", uid}, {"origin", origin}, {"destination", dest},
		{"flight_type", pick(gg, []string{"one_way", "round_trip"})}, {"cabin", cabin},
		{"flights", flights}, {"passengers", pax}, {"payment_methods", pays},
		{"total_baggages", g.num(total)}, {"nonfree_baggages", g.num(nonfree)}, {"insurance", insurance},
	})
}

func (g *airlineGen) resUser(id string) map[string]any {
	r := g.rec("reservations", id)
	if r == nil {
		return g.rec("users", pick(&g.gen, g.users))
	}
	return g.rec("users", r["user_id"].(string))
}

func (g *airlineGen) next() oracleCall {
	gg := &g.gen
	switch g.r.IntN(16) {
	case 0, 1:
		return g.book()
	case 2:
		return g.call("calculate", obj{{"expression", g.expr()}})
	case 3:
		return g.call("cancel_reservation", obj{{"reservation_id", g.resID()}})
	case 4:
		return g.call("get_reservation_details", obj{{"reservation_id", g.resID()}})
	case 5:
		return g.call("get_user_details", obj{{"user_id", g.orMaybe(0.15, pick(gg, g.users))}})
	case 6:
		return g.call("list_all_airports", obj{})
	case 7, 8:
		name := pick(gg, []string{"search_direct_flight", "search_onestop_flight"})
		o, d := pick(gg, g.airports), pick(gg, g.airports)
		if g.chance(0.5) {
			_, date, f := g.leg("")
			o = f["origin"].(string)
			if g.chance(0.5) {
				d = f["destination"].(string)
			}
			return g.call(name, obj{{"origin", o}, {"destination", d}, {"date", date}})
		}
		return g.call(name, obj{{"origin", o}, {"destination", d}, {"date", g.date()}})
	case 9:
		return g.call("send_certificate", obj{{"user_id", g.orMaybe(0.1, pick(gg, g.users))}, {"amount", g.num(g.r.IntN(500))}})
	case 10:
		return g.call("transfer_to_human_agents", obj{{"summary", g.text()}})
	case 11:
		id := g.resID()
		return g.call("update_reservation_baggages", obj{{"reservation_id", id}, {"total_baggages", g.num(g.r.IntN(5))}, {"nonfree_baggages", g.num(g.r.IntN(4))}, {"payment_id", g.methodOf(g.resUser(id))}})
	case 12:
		id := g.resID()
		r := g.rec("reservations", id)
		cabin := pick(gg, cabins())
		var flights []any
		if r != nil {
			if g.chance(0.6) {
				cabin = r["cabin"].(string)
			}
			for _, e := range r["flights"].([]any) {
				f := e.(map[string]any)
				num, date := f["flight_number"].(string), f["date"].(string)
				if g.chance(0.4) {
					date = g.date()
				}
				flights = append(flights, obj{{"flight_number", num}, {"date", date}})
			}
		} else {
			k, d, _ := g.leg("")
			flights = append(flights, obj{{"flight_number", k}, {"date", d}})
		}
		if g.chance(0.03) {
			flights = append(flights, obj{{"flight_number", "HAT999"}})
		}
		return g.call("update_reservation_flights", obj{{"reservation_id", id}, {"cabin", cabin}, {"flights", flights}, {"payment_id", g.methodOf(g.resUser(id))}})
	case 13:
		id := g.resID()
		n := g.r.IntN(3) + 1
		if r := g.rec("reservations", id); r != nil && g.chance(0.8) {
			n = len(r["passengers"].([]any))
		}
		pax := make([]any, n)
		for i := range pax {
			pax[i] = g.passenger()
		}
		return g.call("update_reservation_passengers", obj{{"reservation_id", id}, {"passengers", pax}})
	case 14:
		k, d, _ := g.leg("")
		if g.chance(0.1) {
			d = g.date()
		}
		return g.call("get_flight_status", obj{{"flight_number", g.orMaybe(0.1, k)}, {"date", d}})
	}
	return g.call("get_reservation_details", obj{{"reservation_id", pick(gg, []string{"HATHAT", "HATHAU"})}})
}
