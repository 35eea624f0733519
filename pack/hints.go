package pack

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Hints are optional: without them synth infers tasks from tool
// parameters, result fields and the collections; with them a pack author
// steers which tasks exist and how customers phrase them.
type Hints struct {
	// Writes maps a write tool to how its arguments are found.
	Writes map[string]WriteHint `json:"writes,omitempty"`
	// Searches are read tools a customer's constraints are searched with
	// (flights by origin, destination and date).
	Searches []Search `json:"searches,omitempty"`
	// Informs lists, per collection, what a customer may ask about one of
	// its records; without it a question asks for a described field.
	Informs map[string][]Inform `json:"informs,omitempty"`
	// Transfers are requests outside what the tools can do ("file a
	// complaint about a courier"): the agent hands them to a human.
	Transfers []string `json:"transfers,omitempty"`
	// Asks are, per kind of piece a customer states (target, reason,
	// address, payment, items, new), the ways the domain's agents ask
	// for it, as case-insensitive regular expressions ("which order",
	// "reason for (the )?cancel"): a customer talking to an agent that
	// is not the oracle reads its questions by them, beside the
	// domain-neutral ones (a confirmation, an identity).
	Asks map[string][]string `json:"asks,omitempty"`
	// Persona says who talks to the agent when they are not customers:
	// the staff of a museum, a developer on a cloud platform.
	Persona *Persona `json:"persona,omitempty"`
}

// Persona describes the people who talk to the agent.
type Persona struct {
	// Role is customer, employee, operator or developer.
	Role string `json:"role"`
	// Description says who they are, to follow "You are NAME, "
	// ("a developer who manages their own DigitalOcean resources").
	Description string `json:"description,omitempty"`
}

// WriteHint says where each argument of a write tool comes from.
type WriteHint struct {
	// Target is the collection or search (by name) whose record the write
	// acts on.
	Target string `json:"target,omitempty"`
	// When holds the policy's preconditions on the target: a field and
	// the values it must have ({status: [pending]}) or comparisons it must
	// meet ({flights.date: [">2024-05-15"]}; a list meets one when all its
	// elements do). The agent refuses the write on a target that fails
	// them, and tasks where the customer asks for it anyway test that
	// refusal.
	When map[string][]string `json:"when,omitempty"`
	// Refuse narrows the targets of refusal tasks to those the policy
	// surely forbids, in the form of When, where When states only the
	// policy's sure yes and the rest depends on more (a reason the
	// customer gives): without it every target failing When is refused.
	// A field with no values ({status: []}) means no target is surely
	// forbidden: When then only narrows the targets tasks are drawn
	// from, and no task asks for the write on another.
	Refuse map[string][]string `json:"refuse,omitempty"`
	// Refusals are the errors of the tool that mean the policy forbids
	// the request, as fragments of their text ("cannot be cancelled",
	// "can only be added"), for preconditions a when cannot state (one
	// of several conditions, a flight's status on another record).
	// Targets on which the tool answers one make refusal tasks, and the
	// agent tries the write on a copy of the state before it proposes,
	// refusing with the tool's reason; any other error is a mistake in
	// the arguments.
	Refusals []string `json:"refusals,omitempty"`
	// RefusalRule names the allow rule of this write's tool that a
	// refusal in Refusals cites (a certificate the compensation
	// function gives no amount): refusal tasks record the reason as that
	// rule's condition, the agent says it, and the rule's check holds
	// any agent to it, as for the rule's own refusals.
	RefusalRule string `json:"refusal_rule,omitempty"`
	// Checks are reads the policy needs before the write or its refusal,
	// one per element of a list on the target (each flight's status
	// before a cancellation): whether the write is allowed, or what it
	// does, depends on records the target only points to. The tasks'
	// ground truth holds them, the agent makes them, and a rule of kind
	// checked holds an agent to them.
	Checks []Check `json:"checks,omitempty"`
	// Args maps a parameter to its source.
	Args map[string]Arg `json:"args,omitempty"`
	// Phrase is how a customer asks for it, in the usersim grammar
	// ("{cancel|call off} {target}").
	Phrase string `json:"phrase,omitempty"`
	// Outputs are what the agent must tell the customer: dotted paths in
	// the tool's result, or NAME=EXPR computed from the target, the result
	// and the elements an argument names ("refund=sum(item_ids.price)").
	Outputs []string `json:"outputs,omitempty"`
	// Situation labels the tasks of this write, granted or refused, in
	// the release's situation mix (compensation): a kind of request that
	// matters to a dataset's user beyond its tool.
	Situation string `json:"situation,omitempty"`
	// Follows names writes this one may come after on the same target in
	// one task ([modify_pending_order_address]: a customer changes an
	// order's address, then its items): otherwise a task acts on each
	// record once. List only writes after which the target still meets
	// this write's preconditions and its description still fits it.
	// A write on the customer's own record (target: the users'
	// collection) may follow a write on any of their records
	// ([modify_pending_order_address]: a customer who moved gives an
	// order, then their account, the new address); an argument drawn
	// like: another record's value then takes the earlier write's value.
	Follows []string `json:"follows,omitempty"`
	// Skip leaves the write out of generated tasks, saying why (its
	// arguments follow rules hints cannot state); the agent still has it.
	Skip string `json:"skip,omitempty"`
}

// Check is one read per element of a list on a write's target.
type Check struct {
	// Tool is the read.
	Tool string `json:"tool"`
	// Each is the dotted path of a list in the target record (flights).
	Each string `json:"each"`
	// Args maps each parameter of Tool to a field of the element
	// ({flight_number: flight_number, date: date}).
	Args map[string]string `json:"args"`
	// When limits the check to targets that meet these conditions, in the
	// form of WriteHint.When ({status: [active]}: a cancelled
	// reservation's flights need no look).
	When map[string][]string `json:"when,omitempty"`
}

// Arg is where one argument comes from: a source string, or one of the
// structured sources for arguments a customer chooses among things.
type Arg struct {
	// Source is "target.PATH" (the chosen record), "user.PATH" (the
	// customer's record; several values at the path mean the customer
	// says which), "slot" (the customer states it; drawn from the schema),
	// "slot:A|B|C" (one of these), "like:COLL.PATH.FIELD" (a value the
	// customer states, drawn from another record of COLL; arguments with
	// the same COLL.PATH are drawn from one record, like an address, and
	// a task's later writes reuse it: one new address per customer) or
	// "const:JSON".
	Source  string   `json:"-"`
	Pick    *Pick    `json:"pick,omitempty"`
	Replace *Replace `json:"replace,omitempty"`
	Choose  *Choose  `json:"choose,omitempty"`
	// Slot with Say is a slot source ("slot" or "slot:A|B") together
	// with how a customer says its values.
	Slot string `json:"slot,omitempty"`
	// Compute with Say is a computed source (compute:FUNCTION, the
	// function's name) together with how the agent says its value ("a
	// ${value} travel certificate", not "amount: 100").
	Compute string `json:"compute,omitempty"`
	// Say maps a value to the words a customer says it with, a noun
	// phrase that names what it is for ("yes": "travel insurance", "0":
	// "no checked bags"); "*" is the phrase for any other value, with
	// {value} for the value in words ("{value} checked bags").
	Say map[string]string `json:"say,omitempty"`
}

// UnmarshalJSON reads a source string or a structured source.
func (a *Arg) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &a.Source)
	}
	type plain Arg
	var p plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	n := 0
	for _, set := range []bool{p.Pick != nil, p.Replace != nil, p.Choose != nil, p.Slot != "", p.Compute != ""} {
		if set {
			n++
		}
	}
	chooseCompute := p.Choose != nil && p.Compute != ""
	switch {
	case chooseCompute && n == 2 && p.Choose.Entry == "":
		return fmt.Errorf("a choose with a compute needs choose.entry: the field of the computed argument's entry that holds the choice")
	case !chooseCompute && p.Choose != nil && p.Choose.Entry != "":
		return fmt.Errorf("choose.entry goes with compute: FUNCTION, which builds the argument around the choice")
	case n != 1 && !(chooseCompute && n == 2):
		return fmt.Errorf("an argument source object has exactly one of pick, replace, choose, slot or compute (or choose with compute)")
	}
	said := p.Slot != "" || p.Compute != "" && p.Choose == nil
	if said && len(p.Say) == 0 || !said && len(p.Say) > 0 {
		return fmt.Errorf("say goes with slot or compute: {slot: \"A|B\", say: {A: \"words for A\"}} or {compute: FUNCTION, say: {\"*\": \"${value} credit\"}}")
	}
	*a = Arg(p)
	if p.Compute != "" {
		// Read as compute:FUNCTION everywhere the source string is.
		a.Source = "compute:" + p.Compute
	}
	return nil
}

// SlotSource is the slot source string of a slot object ("slot" or
// "slot:A|B"), or the argument's source string.
func (a Arg) SlotSource() string {
	switch a.Slot {
	case "":
		return a.Source
	case "*":
		return "slot"
	}
	return "slot:" + a.Slot
}

// MarshalJSON writes the form it was read from.
func (a Arg) MarshalJSON() ([]byte, error) {
	if a.Source != "" && a.Compute == "" {
		return json.Marshal(a.Source)
	}
	type plain Arg
	return json.Marshal(plain(a))
}

// Pick is a list argument drawn from the target's sub-records: the
// customer names some of them (the items of an order to return).
type Pick struct {
	// From is the path in the target of its sub-records (a list, or an
	// object of records by key); "user.PATH" names the customer's own
	// (the saved passengers a booking takes).
	From string `json:"from"`
	// ID is the field of a sub-record that goes into the argument; empty,
	// the whole sub-record does (a passenger's name and birth date).
	ID string `json:"id,omitempty"`
	// Count is how many a customer names, "MIN-MAX" (default 1-2), or
	// "target.PATH": as many as the target's list there has (a new set
	// of travellers for a reservation of that many).
	Count string `json:"count,omitempty"`
	// Describe are the fields a customer singles one out by, first
	// alone, then together (an object field contributes its values).
	Describe []string `json:"describe,omitempty"`
	// Say is how a customer names one: "{options} {name}".
	Say string `json:"say,omitempty"`
	// Article is "the" (the default: "the blue kettle") or "none", for
	// sub-records named as people are ("Ana Lopez").
	Article string `json:"article,omitempty"`
}

// Replace is a list argument parallel to a Pick: for each element picked,
// another sub-record of a related record (a variant of the same product,
// for an exchange).
type Replace struct {
	// Of is the Pick argument whose elements are replaced.
	Of string `json:"of"`
	// From is the collection of the related record and Via the picked
	// element's field holding its key (products, product_id).
	From string `json:"from"`
	Via  string `json:"via"`
	// Among is the path in the related record of the candidates, ID the
	// candidate field that goes into the argument.
	Among string `json:"among"`
	ID    string `json:"id"`
	// Where restricts the candidates ({available: "true"}); the element
	// itself is never a candidate.
	Where map[string]string `json:"where,omitempty"`
	// Describe are fields a customer describes a candidate by, Compare
	// those they pick by ("the cheapest available blue one").
	Describe []string `json:"describe,omitempty"`
	Compare  []string `json:"compare,omitempty"`
	// Say is how a customer names one: "the {options} one".
	Say string `json:"say,omitempty"`
}

// Choose is an argument the customer picks among their own things (a
// payment method), or "the original" one the target already names.
type Choose struct {
	// From is the path in the user's record of the elements (a list, or
	// an object of records by key); ID the element field that goes into
	// the argument.
	From string `json:"from"`
	ID   string `json:"id"`
	// Where restricts the elements a customer may choose ({source:
	// [gift_card]}); Default stays allowed.
	Where map[string][]string `json:"where,omitempty"`
	// Default is the path in the target of the value "the original" one
	// means (target.payment_history.payment_method_id: the first), and
	// DefaultSay how a customer says it.
	Default    string `json:"default,omitempty"`
	DefaultSay string `json:"default_say,omitempty"`
	// Other means the choice must differ from Default (a new payment
	// method for an order).
	Other bool `json:"other,omitempty"`
	// Say names an element: a template by the value of the field By
	// ({credit_card: "my {brand} ending in {last_four}"}); "*" is the
	// template for any other value.
	By  string            `json:"by,omitempty"`
	Say map[string]string `json:"say,omitempty"`
	// Entry, with a compute: beside the choose, says the argument is a
	// list of entries the pack's function builds around the choice (a
	// payment of the booking's total by the chosen method), the first
	// holding the chosen element's ID at this field (payment_id).
	Entry string `json:"entry,omitempty"`
}

// Inform is something a customer may ask about a record.
type Inform struct {
	// Ask is what the customer asks for ("total", "status").
	Ask string `json:"ask"`
	// Value is the dotted path of the answer, or sum(PATH); default Ask.
	Value string `json:"value,omitempty"`
	// Within makes it a question about one sub-record: the candidates at
	// this path of the record (a product's variants), restricted by Where,
	// described by Describe and picked by Pick ("min:price").
	Within   string            `json:"within,omitempty"`
	Where    map[string]string `json:"where,omitempty"`
	Describe []string          `json:"describe,omitempty"`
	Pick     string            `json:"pick,omitempty"`
}

// Search is a family of read tools a customer's constraints feed: every
// combination of the grid's values is one read, so a customer with two
// dates and two airports costs the agent 2 x 2 x len(Tools) reads.
type Search struct {
	Name  string   `json:"name"`
	Tools []string `json:"tools"`
	// Grid are the parameters a customer may give several values for.
	Grid []string `json:"grid"`
	// Items is the dotted path of the candidate list in each result ("" =
	// the result itself).
	Items string `json:"items,omitempty"`
	// Compare are candidate fields a customer picks by (min or max).
	Compare []string `json:"compare,omitempty"`
	// Describe are candidate fields a customer can constrain.
	Describe []string `json:"describe,omitempty"`
	// Say words a Describe or Compare field as a collection's say does:
	// "stops=0": "with no stops", "max:price": "the priciest".
	Say map[string]string `json:"say,omitempty"`
	// Detail says what the agent tells of a found candidate beyond where
	// and what it is, in the domain's words: "taking {flights}, leaving
	// at {scheduled_departure_time_est|clock}". Without it the agent
	// lists the candidate's other fields by name.
	Detail string `json:"detail,omitempty"`
	// Legs makes each result element a candidate built of legs: an
	// element that is one object is a candidate of one leg, a list of
	// objects one of several (a connection).
	Legs *Legs `json:"legs,omitempty"`
	// Return lets a share of the customers search a way back too (a
	// round trip): the candidates are then every outbound one paired
	// with a return one of the same Per key.
	Return *Return `json:"return,omitempty"`
}

// Return says how a search goes the other way: Swap names two parameters
// that trade values (origin, destination), After the date parameter the
// way back takes a later value of (1-4 days after the latest outbound
// one), Share the share of searches with a way back. A pair's legs are
// the outbound's then the return's, its Sum fields and stops the two
// added up, its Min fields the smaller; Kind names the candidate field
// that says which it is (flight_type), with its value for one way (One)
// and for a pair (Round), for a write to copy (target.flight_type).
type Return struct {
	Swap  []string `json:"swap"`
	After string   `json:"after"`
	Share float64  `json:"share"`
	Kind  string   `json:"kind"`
	One   string   `json:"one"`
	Round string   `json:"round"`
}

// Legs says how a search's candidates are built from the legs each
// result element holds: a candidate takes its first leg's plain fields
// (origin, departure time), the Last fields from its last leg
// (destination, arrival), lists its legs at Field with the Keep fields
// each (what a write names a leg by: flight number and date), and
// counts its legs less one at Stops. A leg field that is null takes the
// search argument of its name (a nonstop flight's date). With Per, a
// leg holds objects by the same keys (prices and seats by cabin): a
// candidate is made per key that every leg holds, named by it at Per,
// with each Sum field the total of the legs' values at that key and
// each Min field their smallest, which must be above zero (a cabin sold
// out on one leg is no candidate).
type Legs struct {
	Field string            `json:"field"`
	Keep  []string          `json:"keep"`
	Last  []string          `json:"last,omitempty"`
	Stops string            `json:"stops,omitempty"`
	Per   string            `json:"per,omitempty"`
	Sum   map[string]string `json:"sum,omitempty"`
	Min   map[string]string `json:"min,omitempty"`
}
