package tau2

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// τ²'s fixed clock and ids: the airline tools create at most three
// reservations and three certificates per task, with these ids.
func newReservationIDs() [3]string { return [3]string{"HATHAT", "HATHAU", "HATHAV"} }

func newCertificateIDs() [3]string {
	return [3]string{"certificate_3221322", "certificate_3221323", "certificate_3221324"}
}

const airlineNow = "2024-05-15T15:00:00"

// airlineIndex answers τ²'s flight searches; see index.go.
type airlineIndex struct {
	byOrigin map[string][]*flightInfo // by origin, in db order
	byRoute  map[string][]*flightInfo // by origin \x00 destination, in db order
}

// flightInfo is what no tool changes about a flight: the search reads
// the rest (its dates) from the episode's state.
type flightInfo struct {
	key                                      string
	number, origin, destination, dep, arrive string
}

func buildAirlineIndex(st *tools.State) *airlineIndex {
	ix := &airlineIndex{byOrigin: map[string][]*flightInfo{}, byRoute: map[string][]*flightInfo{}}
	for _, k := range keyOrder(st, "flights") {
		v, ok := st.Get("flights", k)
		if !ok {
			continue
		}
		fi, err := readFlightInfo(recView("flights", k, asObject(v)))
		if err != nil {
			// Left to the search, which reports the record.
			fi = &flightInfo{key: k}
		}
		ix.byOrigin[fi.origin] = append(ix.byOrigin[fi.origin], fi)
		ix.byRoute[fi.origin+"\x00"+fi.destination] = append(ix.byRoute[fi.origin+"\x00"+fi.destination], fi)
	}
	return ix
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func readFlightInfo(f view) (*flightInfo, error) {
	var s [5]string
	for i, name := range [...]string{"flight_number", "origin", "destination", "scheduled_departure_time_est", "scheduled_arrival_time_est"} {
		var err error
		if s[i], err = f.str(name); err != nil {
			return nil, err
		}
	}
	return &flightInfo{key: f.key, number: s[0], origin: s[1], destination: s[2], dep: s[3], arrive: s[4]}, nil
}

// AirlineHandlers returns Go handlers for τ²'s 14 airline tools, whose
// results, errors and writes are those of τ²'s AirlineTools. They expect
// the state to hold CheckAirlineDB's database (plus OrderCollection).
func AirlineHandlers() pack.HandlerSet {
	a := &airline{cache: &indexCache[airlineIndex]{anchor: "flights", build: buildAirlineIndex}}
	return handlerSet("AirlineTools", []toolDef{
		{"book_reservation", []string{"user_id", "origin", "destination", "flight_type", "cabin", "flights", "passengers", "payment_methods", "total_baggages", "nonfree_baggages", "insurance"}, a.bookReservation},
		{"calculate", []string{"expression"}, calculateTool},
		{"cancel_reservation", []string{"reservation_id"}, a.cancelReservation},
		{"get_reservation_details", []string{"reservation_id"}, a.getReservationDetails},
		{"get_user_details", []string{"user_id"}, a.getUserDetails},
		{"list_all_airports", nil, listAllAirports},
		{"search_direct_flight", []string{"origin", "destination", "date"}, a.searchDirectFlight},
		{"search_onestop_flight", []string{"origin", "destination", "date"}, a.searchOnestopFlight},
		{"send_certificate", []string{"user_id", "amount"}, a.sendCertificate},
		{"transfer_to_human_agents", []string{"summary"}, transferTool},
		{"update_reservation_baggages", []string{"reservation_id", "total_baggages", "nonfree_baggages", "payment_id"}, a.updateReservationBaggages},
		{"update_reservation_flights", []string{"reservation_id", "cabin", "flights", "payment_id"}, a.updateReservationFlights},
		{"update_reservation_passengers", []string{"reservation_id", "passengers"}, a.updateReservationPassengers},
		{"get_flight_status", []string{"flight_number", "date"}, a.getFlightStatus},
	})
}

type airline struct {
	cache *indexCache[airlineIndex]
}

func (a *airline) user(c *call, id string) (view, error) {
	v, ok, err := c.get("users", id)
	if err == nil && !ok {
		err = fmt.Errorf("User %s not found", id)
	}
	return v, err
}

func (a *airline) reservation(c *call, id string) (view, error) {
	v, ok, err := c.get("reservations", id)
	if err == nil && !ok {
		err = fmt.Errorf("Reservation %s not found", id)
	}
	return v, err
}

func (a *airline) flight(c *call, number string) (view, error) {
	v, ok, err := c.get("flights", number)
	if err == nil && !ok {
		err = fmt.Errorf("Flight %s not found", number)
	}
	return v, err
}

// instance is τ²'s _get_flight_instance: the flight's status on a date.
func (a *airline) instance(c *call, number, date string) (view, view, error) {
	f, err := a.flight(c, number)
	if err != nil {
		return view{}, view{}, err
	}
	dates, err := f.obj("dates")
	if err != nil {
		return view{}, view{}, err
	}
	e, ok := dates.m[date]
	if !ok {
		return view{}, view{}, fmt.Errorf("Flight %s not found on date %s", number, date)
	}
	inst, err := dates.atKey(date, e)
	return f, inst, err
}

// seatsOf reads available_seats[cabin] or prices[cabin]; a cabin the
// record lacks is Python's KeyError.
func seatsOf(inst view, field, cabin string) (int64, error) {
	m, err := inst.obj(field)
	if err != nil {
		return 0, err
	}
	v, ok := m.m[cabin]
	if !ok {
		return 0, keyErr(cabin)
	}
	n, ok := toInt(v)
	if !ok {
		return 0, m.bad(cabin, "an integer")
	}
	return n, nil
}

// booking holds book_reservation's arguments, read and validated in
// τ²'s order.
type booking struct {
	userID, origin, destination, flightType, cabin, insurance string
	flights, passengers, payments                             []map[string]any
	totalBags, nonfreeBags                                    pyNumber
}

func readBooking(c *call) (booking, error) {
	var b booking
	var s [6]string
	for i, name := range []string{"user_id", "origin", "destination", "flight_type", "cabin", "insurance"} {
		var err error
		if s[i], err = c.str(name); err != nil {
			return b, err
		}
	}
	b.userID, b.origin, b.destination, b.flightType, b.cabin, b.insurance = s[0], s[1], s[2], s[3], s[4], s[5]
	flightArgs, err := c.objList("flights")
	if err != nil {
		return b, err
	}
	paxArgs, err := c.objList("passengers")
	if err != nil {
		return b, err
	}
	payArgs, err := c.objList("payment_methods")
	if err != nil {
		return b, err
	}
	if b.totalBags, err = c.number("total_baggages"); err != nil {
		return b, err
	}
	if b.nonfreeBags, err = c.number("nonfree_baggages"); err != nil {
		return b, err
	}
	if b.flights, err = validateAll(flightInfoModel(), flightArgs); err != nil {
		return b, err
	}
	if b.passengers, err = validateAll(passengerModel(), paxArgs); err != nil {
		return b, err
	}
	b.payments, err = validateAll(paymentModel(), payArgs)
	return b, err
}

func (a *airline) bookReservation(c *call) (any, error) {
	b, err := readBooking(c)
	if err != nil {
		return nil, err
	}
	userID, cabin, insurance, nonfreeBags := b.userID, b.cabin, b.insurance, b.nonfreeBags
	flights, passengers, payments := b.flights, b.passengers, b.payments
	u, err := a.user(c, userID)
	if err != nil {
		return nil, err
	}
	resID := ""
	for _, id := range newReservationIDs() {
		if _, taken := c.st.Get("reservations", id); !taken {
			resID = id
			break
		}
	}
	if resID == "" {
		return nil, plainError("Too many reservations")
	}
	// The Reservation model checks its fields here (the JSON Schema has
	// already held the literals to their values) and keeps the bag counts
	// as ints, while the price below uses the argument as given.
	storedTotal, storedNonfree, err := checkReservationFields(b.flightType, cabin, insurance, b.totalBags, nonfreeBags)
	if err != nil {
		return nil, err
	}
	n := int64(len(passengers))
	total := pyInt(0)
	resFlights := make([]any, 0, len(flights))
	type seatUpdate struct{ number, date string }
	var updates []seatUpdate
	for _, fi := range flights {
		number, date := fi["flight_number"].(string), fi["date"].(string)
		seg, price, err := a.segment(c, number, date, cabin, n)
		if err != nil {
			return nil, err
		}
		resFlights = append(resFlights, seg)
		updates = append(updates, seatUpdate{number, date})
		total = total.add(pyInt(price).mulInt(n))
	}
	if insurance == "yes" {
		total = total.add(pyInt(30 * n))
	}
	total = total.add(nonfreeBags.mulInt(50))
	pms, err := u.obj("payment_methods")
	if err != nil {
		return nil, err
	}
	if err := checkBalances(pms, payments); err != nil {
		return nil, err
	}
	paid := pyInt(0)
	for _, p := range payments {
		paid = paid.add(p["amount"].(pyNumber))
	}
	if paid.cmp(total) != 0 {
		return nil, fmt.Errorf("Payment amount does not add up, total price is %s, but paid %s", total, paid)
	}
	newPMs, err := deduct(c, u, pms, payments, userID)
	if err != nil {
		return nil, err
	}
	for _, up := range updates {
		if err := a.takeSeats(c, up.number, up.date, cabin, n); err != nil {
			return nil, err
		}
	}
	history := make([]any, len(payments))
	for i, p := range payments {
		history[i] = map[string]any{"payment_id": p["payment_id"], "amount": p["amount"].(pyNumber).jsonValue()}
	}
	pax := make([]any, len(passengers))
	for i, p := range passengers {
		pax[i] = p
	}
	res := map[string]any{
		"reservation_id": resID, "user_id": userID, "origin": b.origin, "destination": b.destination,
		"flight_type": b.flightType, "cabin": cabin, "flights": resFlights, "passengers": pax,
		"payment_history": history, "created_at": airlineNow,
		"total_baggages": storedTotal.jsonValue(), "nonfree_baggages": storedNonfree.jsonValue(),
		"insurance": insurance, "status": nil,
	}
	if err := c.put("reservations", resID, res); err != nil {
		return nil, err
	}
	resList, err := u.list("reservations")
	if err != nil {
		return nil, err
	}
	newUser := clone(u.m)
	newUser["payment_methods"] = newPMs
	newUser["reservations"] = append(slices.Clip(resList), resID)
	return res, c.put("users", userID, newUser)
}

// segment is a flight segment booked anew in cabin for n passengers, at
// the instance's price: the flight must be available with n seats free.
func (a *airline) segment(c *call, number, date, cabin string, n int64) (map[string]any, int64, error) {
	f, err := a.flight(c, number)
	if err != nil {
		return nil, 0, err
	}
	_, inst, err := a.instance(c, number, date)
	if err != nil {
		return nil, 0, err
	}
	if inst.m["status"] != "available" {
		return nil, 0, fmt.Errorf("Flight %s not available on date %s", number, date)
	}
	seats, err := seatsOf(inst, "available_seats", cabin)
	if err != nil {
		return nil, 0, err
	}
	if seats < n {
		return nil, 0, fmt.Errorf("Not enough seats on flight %s", number)
	}
	price, err := seatsOf(inst, "prices", cabin)
	if err != nil {
		return nil, 0, err
	}
	fo, err := f.str("origin")
	if err != nil {
		return nil, 0, err
	}
	fd, err := f.str("destination")
	if err != nil {
		return nil, 0, err
	}
	return map[string]any{
		"flight_number": number, "origin": fo, "destination": fd, "date": date, "price": price,
	}, price, nil
}

// checkBalances refuses a payment with a method the user lacks, or for
// more than a gift card or certificate holds.
func checkBalances(pms view, payments []map[string]any) error {
	for _, p := range payments {
		id := p["payment_id"].(string)
		amount := p["amount"].(pyNumber)
		e, ok := pms.m[id]
		if !ok {
			return fmt.Errorf("Payment method %s not found", id)
		}
		pm, err := pms.atKey(id, e)
		if err != nil {
			return err
		}
		if src := pm.m["source"]; src == "gift_card" || src == "certificate" {
			bal, err := pm.num("amount")
			if err != nil {
				return err
			}
			if pyFloatN(bal).cmp(amount) < 0 {
				return fmt.Errorf("Not enough balance in payment method %s", id)
			}
		}
	}
	return nil
}

// deduct takes the payments from the user's methods: gift cards lose the
// amount, certificates are used up. A certificate named twice is gone by
// its second turn, and τ² stops there with a KeyError, keeping what it
// already deducted.
func deduct(c *call, u, pms view, payments []map[string]any, userID string) (map[string]any, error) {
	newPMs := clone(pms.m)
	for _, p := range payments {
		id := p["payment_id"].(string)
		e, ok := newPMs[id]
		if !ok {
			newUser := clone(u.m)
			newUser["payment_methods"] = newPMs
			if err := c.put("users", userID, newUser); err != nil {
				return nil, err
			}
			return nil, keyErr(id)
		}
		pm, _ := e.(map[string]any)
		switch pm["source"] {
		case "gift_card":
			bal, _ := toFloat(pm["amount"])
			card := clone(pm)
			card["amount"] = bal - p["amount"].(pyNumber).float()
			newPMs[id] = card
		case "certificate":
			delete(newPMs, id)
		}
	}
	return newPMs, nil
}

// checkReservationFields is the validation Reservation(...) does on the
// arguments it is built from: literals, and integers for the bag counts
// (pydantic takes 2.0 for 2).
func checkReservationFields(flightType, cabin, insurance string, total, nonfree pyNumber) (pyNumber, pyNumber, error) {
	var errs []pydErr
	if !slices.Contains([]string{"round_trip", "one_way"}, flightType) {
		errs = append(errs, litErr("flight_type", flightType, "'round_trip' or 'one_way'"))
	}
	if !slices.Contains(cabins(), cabin) {
		errs = append(errs, litErr("cabin", cabin, "'business', 'economy' or 'basic_economy'"))
	}
	t, e := pydIntNum(total, total.jsonValue())
	if e != nil {
		e.loc = "total_baggages"
		errs = append(errs, *e)
	}
	n, e := pydIntNum(nonfree, nonfree.jsonValue())
	if e != nil {
		e.loc = "nonfree_baggages"
		errs = append(errs, *e)
	}
	if insurance != "yes" && insurance != "no" {
		errs = append(errs, litErr("insurance", insurance, "'yes' or 'no'"))
	}
	if len(errs) > 0 {
		return pyNumber{}, pyNumber{}, pydError("Reservation", errs)
	}
	return t, n, nil
}

// takeSeats is τ²'s available_seats[cabin] -= len(passengers), once per
// booked flight (twice if the same flight is booked twice).
func (a *airline) takeSeats(c *call, number, date, cabin string, n int64) error {
	f, inst, err := a.instance(c, number, date)
	if err != nil {
		return err
	}
	seats, err := seatsOf(inst, "available_seats", cabin)
	if err != nil {
		return err
	}
	dates, err := f.obj("dates")
	if err != nil {
		return err
	}
	as, err := inst.obj("available_seats")
	if err != nil {
		return err
	}
	newAS := clone(as.m)
	newAS[cabin] = seats - n
	newInst := clone(inst.m)
	newInst["available_seats"] = newAS
	newDates := clone(dates.m)
	newDates[date] = newInst
	newFlight := clone(f.m)
	newFlight["dates"] = newDates
	return c.put("flights", number, newFlight)
}

func (a *airline) cancelReservation(c *call) (any, error) {
	id, err := c.str("reservation_id")
	if err != nil {
		return nil, err
	}
	r, err := a.reservation(c, id)
	if err != nil {
		return nil, err
	}
	history, err := r.list("payment_history")
	if err != nil {
		return nil, err
	}
	// Every entry gets its negation, refunds of an earlier cancellation
	// included; the seats are not released (τ² leaves that undone).
	out := clone(r.m)
	newHistory := slices.Grow(slices.Clip(history), len(history))
	for i, e := range history {
		p, err := r.atIndex("payment_history", i, e)
		if err != nil {
			return nil, err
		}
		amount, err := p.int("amount")
		if err != nil {
			return nil, err
		}
		newHistory = append(newHistory, map[string]any{"payment_id": p.m["payment_id"], "amount": -amount})
	}
	out["payment_history"] = newHistory
	out["status"] = "cancelled"
	return out, c.put("reservations", id, out)
}

func (a *airline) getReservationDetails(c *call) (any, error) {
	id, err := c.str("reservation_id")
	if err != nil {
		return nil, err
	}
	r, err := a.reservation(c, id)
	return r.m, err
}

func (a *airline) getUserDetails(c *call) (any, error) {
	id, err := c.str("user_id")
	if err != nil {
		return nil, err
	}
	u, err := a.user(c, id)
	return u.m, err
}

// airport is τ²'s AirportCode.
type airport struct {
	IATA string `json:"iata"`
	City string `json:"city"`
}

func listAllAirports(*call) (any, error) {
	return []airport{
		{"SFO", "San Francisco"}, {"JFK", "New York"}, {"LAX", "Los Angeles"}, {"ORD", "Chicago"},
		{"DFW", "Dallas"}, {"DEN", "Denver"}, {"SEA", "Seattle"}, {"ATL", "Atlanta"},
		{"MIA", "Miami"}, {"BOS", "Boston"}, {"PHX", "Phoenix"}, {"IAH", "Houston"},
		{"LAS", "Las Vegas"}, {"MCO", "Orlando"}, {"EWR", "Newark"}, {"CLT", "Charlotte"},
		{"MSP", "Minneapolis"}, {"DTW", "Detroit"}, {"PHL", "Philadelphia"}, {"LGA", "LaGuardia"},
	}, nil
}

// directFlight is τ²'s DirectFlight as model_dump writes it.
type directFlight struct {
	FlightNumber string  `json:"flight_number"`
	Origin       string  `json:"origin"`
	Destination  string  `json:"destination"`
	Status       string  `json:"status"`
	Departure    string  `json:"scheduled_departure_time_est"`
	Arrival      string  `json:"scheduled_arrival_time_est"`
	Date         *string `json:"date"`
	Seats        any     `json:"available_seats"`
	Prices       any     `json:"prices"`
}

// directFlights and connections are the search tools' answers. They
// write their JSON themselves, as json.Marshal does, through
// tools.Appender: reflecting over them was most of what encoding/json did
// in an airline run.
type (
	directFlights []*directFlight
	connections   [][2]*directFlight
)

func (l directFlights) AppendJSON(dst []byte) ([]byte, bool) {
	if l == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '[')
	for i, f := range l {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = f.appendJSON(dst); !ok {
			return dst, false
		}
	}
	return append(dst, ']'), true
}

func (l connections) AppendJSON(dst []byte) ([]byte, bool) {
	if l == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '[')
	for i, pair := range l {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = directFlights(pair[:]).AppendJSON(dst); !ok {
			return dst, false
		}
	}
	return append(dst, ']'), true
}

// appendJSON writes the fields in their order, as their tags name them.
func (f *directFlight) appendJSON(dst []byte) ([]byte, bool) {
	if f == nil {
		return append(dst, "null"...), true
	}
	for i, s := range [...]struct{ name, v string }{
		{"flight_number", f.FlightNumber}, {"origin", f.Origin}, {"destination", f.Destination}, {"status", f.Status},
		{"scheduled_departure_time_est", f.Departure}, {"scheduled_arrival_time_est", f.Arrival},
	} {
		if i == 0 {
			dst = append(dst, '{')
		} else {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, s.name...)
		dst = append(dst, `":`...)
		dst = tools.AppendString(dst, s.v, true)
	}
	dst = append(dst, `,"date":`...)
	if f.Date == nil {
		dst = append(dst, "null"...)
	} else {
		dst = tools.AppendString(dst, *f.Date, true)
	}
	var ok bool
	dst = append(dst, `,"available_seats":`...)
	if dst, ok = tools.AppendJSON(dst, f.Seats); !ok {
		return dst, false
	}
	dst = append(dst, `,"prices":`...)
	if dst, ok = tools.AppendJSON(dst, f.Prices); !ok {
		return dst, false
	}
	return append(dst, '}'), true
}

// searchDirect is τ²'s _search_direct_flight: flights in db order with
// the origin (and destination, when given), available on the date,
// leaving at or after leaveAfter (a string comparison, as τ²'s).
func (a *airline) searchDirect(c *call, date, origin string, destination *string, leaveAfter *string) ([]*directFlight, error) {
	var cands []*flightInfo
	if ix := a.cache.get(c.st); ix != nil {
		if destination != nil {
			cands = ix.byRoute[origin+"\x00"+*destination]
		} else {
			cands = ix.byOrigin[origin]
		}
	} else {
		for _, k := range keyOrder(c.st, "flights") {
			f, ok, err := c.get("flights", k)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			fi, err := readFlightInfo(f)
			if err != nil {
				return nil, err
			}
			cands = append(cands, fi)
		}
	}
	var out []*directFlight
	for _, fi := range cands {
		if fi.number == "" && fi.origin == "" {
			// A record the index could not read: report it.
			f, _, err := c.get("flights", fi.key)
			if err == nil {
				_, err = readFlightInfo(f)
			}
			return nil, err
		}
		if fi.origin != origin || destination != nil && fi.destination != *destination {
			continue
		}
		f, ok, err := c.get("flights", fi.key)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		dates, err := f.obj("dates")
		if err != nil {
			return nil, err
		}
		e, ok := dates.m[date]
		if !ok {
			continue
		}
		inst, err := dates.atKey(date, e)
		if err != nil {
			return nil, err
		}
		if inst.m["status"] != "available" || leaveAfter != nil && fi.dep < *leaveAfter {
			continue
		}
		out = append(out, &directFlight{
			FlightNumber: fi.number, Origin: fi.origin, Destination: fi.destination, Status: "available",
			Departure: fi.dep, Arrival: fi.arrive, Seats: inst.m["available_seats"], Prices: inst.m["prices"],
		})
	}
	return out, nil
}

func (a *airline) searchDirectFlight(c *call) (any, error) {
	var s [3]string
	for i, name := range []string{"origin", "destination", "date"} {
		var err error
		if s[i], err = c.str(name); err != nil {
			return nil, err
		}
	}
	res, err := a.searchDirect(c, s[2], s[0], &s[1], nil)
	switch {
	case res == nil && err == nil:
		return []any{}, nil
	case err != nil:
		return res, err
	}
	return directFlights(res), nil
}

func (a *airline) searchOnestopFlight(c *call) (any, error) {
	var s [3]string
	for i, name := range []string{"origin", "destination", "date"} {
		var err error
		if s[i], err = c.str(name); err != nil {
			return nil, err
		}
	}
	origin, destination, date := s[0], s[1], s[2]
	firsts, err := a.searchDirect(c, date, origin, nil, nil)
	if err != nil {
		return nil, err
	}
	out := connections{}
	for _, f1 := range firsts {
		f1.Date = &date
		date2 := date
		// τ² moves a leg that lands "+1" to the next day by adding one
		// to the date's last two characters, unpadded ("2024-05-2").
		if strings.Contains(f1.Arrival, "+1") {
			day, err := pyIntText(date[max(0, len(date)-2):])
			if err != nil {
				return nil, err
			}
			date2 = "2024-05-" + strconv.FormatInt(day+1, 10)
		}
		seconds, err := a.searchDirect(c, date2, f1.Destination, &destination, &f1.Arrival)
		if err != nil {
			return nil, err
		}
		for _, f2 := range seconds {
			d2 := date2
			f2.Date = &d2
			out = append(out, [2]*directFlight{f1, f2})
		}
	}
	return out, nil
}

// pyIntText is Python's int() of a short string: surrounding whitespace,
// one sign, digits with single underscores between them.
func pyIntText(s string) (int64, error) {
	t := strings.TrimFunc(s, unicode.IsSpace)
	body := t
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	if !pyDigits(body, true) {
		return 0, fmt.Errorf("invalid literal for int() with base 10: %s", pyStr(s))
	}
	return strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64)
}

func (a *airline) sendCertificate(c *call) (any, error) {
	userID, err := c.str("user_id")
	if err != nil {
		return nil, err
	}
	amount, err := c.number("amount")
	if err != nil {
		return nil, err
	}
	u, err := a.user(c, userID)
	if err != nil {
		return nil, err
	}
	pms, err := u.obj("payment_methods")
	if err != nil {
		return nil, err
	}
	for _, id := range newCertificateIDs() {
		if _, taken := pms.m[id]; taken {
			continue
		}
		// Certificate's amount is a float: an int too large for one
		// fails its validation.
		f := amount.float()
		if math.IsInf(f, 0) && !amount.isFloat {
			return nil, pydError("Certificate", []pydErr{{loc: "amount", typ: "float_type", msg: "Input should be a valid number", input: c.args["amount"]}})
		}
		newPMs := clone(pms.m)
		newPMs[id] = map[string]any{"source": "certificate", "id": id, "amount": f}
		newUser := clone(u.m)
		newUser["payment_methods"] = newPMs
		if err := c.put("users", userID, newUser); err != nil {
			return nil, err
		}
		return fmt.Sprintf("Certificate %s added to user %s with amount %s.", id, userID, amount), nil
	}
	return nil, plainError("Too many certificates")
}

// paymentForUpdate is τ²'s _payment_for_update: the method must be the
// user's and not a certificate, a gift card must cover the price and
// pays it at once (before the payment record is made); nothing is
// recorded for a zero price.
func (a *airline) paymentForUpdate(c *call, userID string, u view, pmID string, price pyNumber) (map[string]any, error) {
	pms, err := u.obj("payment_methods")
	if err != nil {
		return nil, err
	}
	e, ok := pms.m[pmID]
	if !ok {
		return nil, plainError("Payment method not found")
	}
	pm, err := pms.atKey(pmID, e)
	if err != nil {
		return nil, err
	}
	switch pm.m["source"] {
	case "certificate":
		return nil, plainError("Certificate cannot be used to update reservation")
	case "gift_card":
		bal, err := pm.num("amount")
		if err != nil {
			return nil, err
		}
		if pyFloatN(bal).cmp(price) < 0 {
			return nil, plainError("Gift card balance is not enough")
		}
		card := clone(pm.m)
		card["amount"] = bal - price.float()
		newPMs := clone(pms.m)
		newPMs[pmID] = card
		newUser := clone(u.m)
		newUser["payment_methods"] = newPMs
		if err := c.put("users", userID, newUser); err != nil {
			return nil, err
		}
	}
	if price.isZero() {
		return nil, nil
	}
	amount, perr := pydIntNum(price, price.jsonValue())
	if perr != nil {
		perr.loc = "amount"
		return nil, pydError("Payment", []pydErr{*perr})
	}
	return map[string]any{"payment_id": pmID, "amount": amount.jsonValue()}, nil
}

func (a *airline) updateReservationBaggages(c *call) (any, error) {
	id, err := c.str("reservation_id")
	if err != nil {
		return nil, err
	}
	total, err := c.number("total_baggages")
	if err != nil {
		return nil, err
	}
	nonfree, err := c.number("nonfree_baggages")
	if err != nil {
		return nil, err
	}
	pmID, err := c.str("payment_id")
	if err != nil {
		return nil, err
	}
	r, err := a.reservation(c, id)
	if err != nil {
		return nil, err
	}
	userID, err := r.str("user_id")
	if err != nil {
		return nil, err
	}
	u, err := a.user(c, userID)
	if err != nil {
		return nil, err
	}
	had, ok := numberArg(r.m["nonfree_baggages"])
	if !ok {
		return nil, r.bad("nonfree_baggages", "a number")
	}
	price := pyMax0(nonfree.sub(had)).mulInt(50)
	payment, err := a.paymentForUpdate(c, userID, u, pmID, price)
	if err != nil {
		return nil, err
	}
	out := clone(r.m)
	if payment != nil {
		history, err := r.list("payment_history")
		if err != nil {
			return nil, err
		}
		out["payment_history"] = append(slices.Clip(history), payment)
	}
	// Assigned as given: no validation on assignment, so 2.0 stays 2.0.
	out["total_baggages"] = total.jsonValue()
	out["nonfree_baggages"] = nonfree.jsonValue()
	return out, c.put("reservations", id, out)
}

func (a *airline) updateReservationFlights(c *call) (any, error) {
	id, err := c.str("reservation_id")
	if err != nil {
		return nil, err
	}
	cabin, err := c.str("cabin")
	if err != nil {
		return nil, err
	}
	flightArgs, err := c.objList("flights")
	if err != nil {
		return nil, err
	}
	pmID, err := c.str("payment_id")
	if err != nil {
		return nil, err
	}
	flights, err := validateAll(flightInfoModel(), flightArgs)
	if err != nil {
		return nil, err
	}
	r, err := a.reservation(c, id)
	if err != nil {
		return nil, err
	}
	userID, err := r.str("user_id")
	if err != nil {
		return nil, err
	}
	u, err := a.user(c, userID)
	if err != nil {
		return nil, err
	}
	oldFlights, err := r.list("flights")
	if err != nil {
		return nil, err
	}
	pax, err := r.list("passengers")
	if err != nil {
		return nil, err
	}
	n := int64(len(pax))
	resCabin, _ := r.m["cabin"].(string)
	total := pyInt(0)
	newFlights := make([]any, 0, len(flights))
	for _, fi := range flights {
		number, date := fi["flight_number"].(string), fi["date"].(string)
		// A segment already booked in the same cabin keeps its price.
		var kept map[string]any
		if cabin == resCabin {
			kept = bookedSegment(oldFlights, number, date)
		}
		if kept != nil {
			p, ok := toInt(kept["price"])
			if !ok {
				return nil, r.bad("flights[].price", "an integer")
			}
			total = total.add(pyInt(p).mulInt(n))
			newFlights = append(newFlights, kept)
			continue
		}
		seg, price, err := a.segment(c, number, date, cabin, n)
		if err != nil {
			return nil, err
		}
		newFlights = append(newFlights, seg)
		total = total.add(pyInt(price).mulInt(n))
	}
	paidBefore, err := segmentsPrice(r, oldFlights)
	if err != nil {
		return nil, err
	}
	total = total.sub(pyInt(paidBefore).mulInt(n))
	payment, err := a.paymentForUpdate(c, userID, u, pmID, total)
	if err != nil {
		return nil, err
	}
	out := clone(r.m)
	if payment != nil {
		history, err := r.list("payment_history")
		if err != nil {
			return nil, err
		}
		out["payment_history"] = append(slices.Clip(history), payment)
	}
	out["flights"] = newFlights
	out["cabin"] = cabin
	return out, c.put("reservations", id, out)
}

// bookedSegment is the reservation's segment of flight number on date,
// or nil.
func bookedSegment(flights []any, number, date string) map[string]any {
	for _, e := range flights {
		of, _ := e.(map[string]any)
		if of["flight_number"] == number && of["date"] == date {
			return of
		}
	}
	return nil
}

// segmentsPrice is the sum of the reservation's segment prices, per
// passenger.
func segmentsPrice(r view, flights []any) (int64, error) {
	sum := int64(0)
	for i, e := range flights {
		of, err := r.atIndex("flights", i, e)
		if err != nil {
			return 0, err
		}
		p, err := of.int("price")
		if err != nil {
			return 0, err
		}
		sum += p
	}
	return sum, nil
}

func (a *airline) updateReservationPassengers(c *call) (any, error) {
	id, err := c.str("reservation_id")
	if err != nil {
		return nil, err
	}
	paxArgs, err := c.objList("passengers")
	if err != nil {
		return nil, err
	}
	passengers, err := validateAll(passengerModel(), paxArgs)
	if err != nil {
		return nil, err
	}
	r, err := a.reservation(c, id)
	if err != nil {
		return nil, err
	}
	old, err := r.list("passengers")
	if err != nil {
		return nil, err
	}
	if len(passengers) != len(old) {
		return nil, plainError("Number of passengers does not match")
	}
	pax := make([]any, len(passengers))
	for i, p := range passengers {
		pax[i] = p
	}
	out := clone(r.m)
	out["passengers"] = pax
	return out, c.put("reservations", id, out)
}

func (a *airline) getFlightStatus(c *call) (any, error) {
	number, err := c.str("flight_number")
	if err != nil {
		return nil, err
	}
	date, err := c.str("date")
	if err != nil {
		return nil, err
	}
	_, inst, err := a.instance(c, number, date)
	if err != nil {
		return nil, err
	}
	return inst.str("status")
}
