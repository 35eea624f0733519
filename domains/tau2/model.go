package tau2

// τ²'s data models (retail_data_model.py, airline_data_model.py) as data:
// the checker walks a db.json with them and builds what pydantic's
// model_validate(...).model_dump() builds, and the handlers' pydantic
// messages come from the same descriptions.

type kind uint8

const (
	kStr kind = iota
	kInt
	kFloat
	kBool
	kLit   // a Literal of strings
	kOpt   // Optional[elem], default None
	kList  // List[elem]
	kDict  // Dict[key, elem]; key is kStr or kLit
	kModel // a BaseModel
	kUnion // Union of models told apart by one Literal field
)

type typ struct {
	k     kind
	lits  []string
	elem  *typ
	key   *typ
	model *model
	union []*model
	tag   string // kUnion: the Literal field that picks the member
}

type field struct {
	name string
	t    *typ
	opt  bool // has a default (None)
}

type model struct {
	name   string
	fields []field
}

// Scalar types are made fresh each time (shared package-level values
// would be mutable globals).
func tStr() *typ   { return &typ{k: kStr} }
func tInt() *typ   { return &typ{k: kInt} }
func tFloat() *typ { return &typ{k: kFloat} }
func tBool() *typ  { return &typ{k: kBool} }

func lit(vals ...string) *typ             { return &typ{k: kLit, lits: vals} }
func opt(t *typ) *typ                     { return &typ{k: kOpt, elem: t} }
func list(t *typ) *typ                    { return &typ{k: kList, elem: t} }
func dict(k, v *typ) *typ                 { return &typ{k: kDict, key: k, elem: v} }
func ref(m *model) *typ                   { return &typ{k: kModel, model: m} }
func union(tag string, ms ...*model) *typ { return &typ{k: kUnion, union: ms, tag: tag} }

func req(name string, t *typ) field       { return field{name: name, t: t} }
func dflt(name string, t *typ) field      { return field{name: name, t: opt(t), opt: true} }
func mdl(name string, fs ...field) *model { return &model{name: name, fields: fs} }

// fieldNames lists a model's fields in definition order.
func (m *model) fieldNames() []string {
	out := make([]string, len(m.fields))
	for i, f := range m.fields {
		out[i] = f.name
	}
	return out
}

// schema is a τ² database model: its collections, each a dict of records.
type schema struct {
	domain string
	colls  []field // each of kind kDict
}

// retailSchema mirrors RetailDB. The models are built fresh per call:
// package-level values would be mutable globals.
func retailSchema() *schema {
	address := mdl("UserAddress",
		req("address1", tStr()), req("address2", tStr()), req("city", tStr()),
		req("country", tStr()), req("state", tStr()), req("zip", tStr()))
	variant := mdl("Variant",
		req("item_id", tStr()), req("options", dict(tStr(), tStr())),
		req("available", tBool()), req("price", tFloat()))
	product := mdl("Product",
		req("name", tStr()), req("product_id", tStr()), req("variants", dict(tStr(), ref(variant))))
	creditCard := mdl("CreditCard",
		req("source", lit("credit_card")), req("id", tStr()), req("brand", tStr()), req("last_four", tStr()))
	paypal := mdl("Paypal", req("source", lit("paypal")), req("id", tStr()))
	giftCard := mdl("GiftCard", req("source", lit("gift_card")), req("id", tStr()), req("balance", tFloat()))
	user := mdl("User",
		req("user_id", tStr()),
		req("name", ref(mdl("UserName", req("first_name", tStr()), req("last_name", tStr())))),
		req("address", ref(address)), req("email", tStr()),
		req("payment_methods", dict(tStr(), union("source", creditCard, giftCard, paypal))),
		req("orders", list(tStr())))
	item := mdl("OrderItem",
		req("name", tStr()), req("product_id", tStr()), req("item_id", tStr()),
		req("price", tFloat()), req("options", dict(tStr(), tStr())))
	fulfil := mdl("OrderFullfilment", req("tracking_id", list(tStr())), req("item_ids", list(tStr())))
	payment := mdl("OrderPayment",
		req("transaction_type", lit("payment", "refund")), req("amount", tFloat()), req("payment_method_id", tStr()))
	order := mdl("Order",
		req("order_id", tStr()), req("user_id", tStr()), req("address", ref(address)),
		req("items", list(ref(item))),
		req("status", lit("processed", "pending", "pending (item modified)", "delivered", "cancelled", "exchange requested", "return requested")),
		req("fulfillments", list(ref(fulfil))),
		req("payment_history", list(ref(payment))),
		dflt("cancel_reason", lit("no longer needed", "ordered by mistake")),
		dflt("exchange_items", list(tStr())), dflt("exchange_new_items", list(tStr())),
		dflt("exchange_payment_method_id", tStr()), dflt("exchange_price_difference", tFloat()),
		dflt("return_items", list(tStr())), dflt("return_payment_method_id", tStr()))
	return &schema{domain: "retail", colls: []field{
		req("products", dict(tStr(), ref(product))),
		req("users", dict(tStr(), ref(user))),
		req("orders", dict(tStr(), ref(order))),
	}}
}

// cabins are τ²'s CabinClass literals.
func cabins() []string { return []string{"business", "economy", "basic_economy"} }

// Airline argument models, shared by the schema and the handlers'
// validation of book_reservation's and the update tools' list items.
func flightInfoModel() *model {
	return mdl("FlightInfo", req("flight_number", tStr()), req("date", tStr()))
}

func passengerModel() *model {
	return mdl("Passenger", req("first_name", tStr()), req("last_name", tStr()), req("dob", tStr()))
}

func paymentModel() *model {
	return mdl("Payment", req("payment_id", tStr()), req("amount", tInt()))
}

// airlineSchema mirrors FlightDB.
func airlineSchema() *schema {
	seats := dict(lit(cabins()...), tInt())
	available := mdl("FlightDateStatusAvailable",
		req("status", lit("available")), req("available_seats", seats), req("prices", seats))
	landed := mdl("FlightDateStatusLanded",
		req("status", lit("landed")), req("actual_departure_time_est", tStr()), req("actual_arrival_time_est", tStr()))
	cancelled := mdl("FlightDateStatusCancelled", req("status", lit("cancelled")))
	delayed := mdl("FlightDateStatusDelayed",
		req("status", lit("delayed")), req("estimated_departure_time_est", tStr()), req("estimated_arrival_time_est", tStr()))
	flying := mdl("FlightDataStatusFlying",
		req("status", lit("flying")), req("actual_departure_time_est", tStr()), req("estimated_arrival_time_est", tStr()))
	onTime := mdl("FlightDataStatusOnTime",
		req("status", lit("on time")), req("estimated_departure_time_est", tStr()), req("estimated_arrival_time_est", tStr()))
	flight := mdl("Flight",
		req("flight_number", tStr()), req("origin", tStr()), req("destination", tStr()),
		req("scheduled_departure_time_est", tStr()), req("scheduled_arrival_time_est", tStr()),
		req("dates", dict(tStr(), union("status", available, landed, cancelled, delayed, flying, onTime))))
	creditCard := mdl("CreditCard",
		req("source", lit("credit_card")), req("id", tStr()), req("brand", tStr()), req("last_four", tStr()))
	giftCard := mdl("GiftCard", req("source", lit("gift_card")), req("id", tStr()), req("amount", tFloat()))
	certificate := mdl("Certificate", req("source", lit("certificate")), req("id", tStr()), req("amount", tFloat()))
	address := mdl("Address",
		req("address1", tStr()), dflt("address2", tStr()), req("city", tStr()),
		req("country", tStr()), req("state", tStr()), req("zip", tStr()))
	user := mdl("User",
		req("user_id", tStr()),
		req("name", ref(mdl("Name", req("first_name", tStr()), req("last_name", tStr())))),
		req("address", ref(address)), req("email", tStr()), req("dob", tStr()),
		req("payment_methods", dict(tStr(), union("source", creditCard, giftCard, certificate))),
		req("saved_passengers", list(ref(passengerModel()))),
		req("membership", lit("gold", "silver", "regular")),
		req("reservations", list(tStr())))
	resFlight := mdl("ReservationFlight",
		req("flight_number", tStr()), req("origin", tStr()), req("destination", tStr()),
		req("date", tStr()), req("price", tInt()))
	reservation := mdl("Reservation",
		req("reservation_id", tStr()), req("user_id", tStr()), req("origin", tStr()), req("destination", tStr()),
		req("flight_type", lit("round_trip", "one_way")), req("cabin", lit(cabins()...)),
		req("flights", list(ref(resFlight))), req("passengers", list(ref(passengerModel()))),
		req("payment_history", list(ref(paymentModel()))), req("created_at", tStr()),
		req("total_baggages", tInt()), req("nonfree_baggages", tInt()),
		req("insurance", lit("yes", "no")), dflt("status", lit("cancelled")))
	return &schema{domain: "airline", colls: []field{
		req("flights", dict(tStr(), ref(flight))),
		req("users", dict(tStr(), ref(user))),
		req("reservations", dict(tStr(), ref(reservation))),
	}}
}
