package model

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/domains/airline"
	"github.com/synth-data/synth/domains/retail"
	"github.com/synth-data/synth/domains/tau2"
	"github.com/synth-data/synth/internal/testpacks"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// testModels compiles each test pack once: the library and catalog test
// packs, a pack built in Go, airline and retail.
var testModels = sync.OnceValues(func() (map[string]*Model, error) {
	ctx := context.Background()
	out := map[string]*Model{}
	load := func(name string, p *pack.Pack, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		m, err := NewModel(ctx, p)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out[name] = m
		return nil
	}
	for _, name := range []string{"library", "catalog"} {
		p, err := testpacks.Load(ctx, name)
		if err := load(name, p, err); err != nil {
			return nil, err
		}
	}
	p, err := pack.Load(ctx, airline.FS(), 1, pack.Options{Builtins: tau2.HandlerSets()})
	if err := load("airline", p, err); err != nil {
		return nil, err
	}
	p, err = pack.Load(ctx, retail.FS(), 1, pack.Options{Builtins: tau2.HandlerSets(),
		Databases: map[string]pack.DatabaseReader{"tau2-retail": tau2.ReadRetailDB}})
	if err := load("retail", p, err); err != nil {
		return nil, err
	}
	p, err = testpacks.GoPack()
	if err := load("gopack", p, err); err != nil {
		return nil, err
	}
	return out, nil
})

func models(t testing.TB) map[string]*Model {
	t.Helper()
	ms, err := testModels()
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func TestModelInference(t *testing.T) {
	m := models(t)["gopack"]
	notes := m.Colls["notes"]
	if notes.Get != "get_note" || notes.GetParam != "note_id" {
		t.Errorf("notes get = %s(%s), want get_note(note_id)", notes.Get, notes.GetParam)
	}
	if notes.List == nil || notes.List.Tool != "get_customer" || notes.List.Field != "notes" || notes.List.Param != "customer_id" {
		t.Errorf("notes list = %+v, want get_customer(customer_id).notes", notes.List)
	}
	if !slices.Contains(notes.Describe, "topic") || !slices.Contains(notes.Compare, "created_at") || !slices.Contains(notes.Compare, "stars") {
		t.Errorf("notes describe %v compare %v", notes.Describe, notes.Compare)
	}
	if m.Users.Details != "get_customer" {
		t.Errorf("user details tool %q", m.Users.Details)
	}
	w := m.Write("retitle_note")
	if w == nil || w.TargetKind != TargetColl || w.Coll != notes {
		t.Fatalf("retitle_note target: %+v", w)
	}
	tests := []struct{ param, source, path string }{
		{"note_id", SrcTargetKey, ""},
		{"topic", SrcSlot, "topic"}, // a field of the target: a new value from the data
	}
	for _, tc := range tests {
		p := w.Param(tc.param)
		if p == nil || p.Source != tc.source || p.Path != tc.path {
			t.Errorf("%s: got %+v, want source %s path %q", tc.param, p, tc.source, tc.path)
		}
	}
	if got := m.UserKeyOf(`"c3"`); got != "c3" {
		t.Errorf("UserKeyOf string = %q", got)
	}
	lib := models(t)["library"]
	if got := lib.UserKeyOf(`{"member_id":"M004","email":"x"}`); got != "M004" {
		t.Errorf("UserKeyOf record = %q", got)
	}
	if lib.Users.Details != "get_member" || lib.Colls["loans"].List == nil || lib.Colls["loans"].List.Tool != "list_loans" {
		t.Errorf("library: details %q, loans list %+v", lib.Users.Details, lib.Colls["loans"].List)
	}
	// A search by attributes (search_books(genre, year)) lists no
	// parent's records: it is not the books' get.
	if books := lib.Colls["books"]; books.Get != "" || books.GetLists {
		t.Errorf("library books are read by %s (lists %v), want no get", books.Get, books.GetLists)
	}
	if cat := models(t)["catalog"]; cat.Users != nil || cat.Colls["items"].List == nil || cat.Write("create_item").TargetKind != TargetNone {
		t.Errorf("catalog: users %v, items list %+v", cat.Users, cat.Colls["items"].List)
	}
	// Open tools: generic ones and reads that name no customer or owned record.
	open := models(t)["airline"].OpenTools()
	for _, want := range []string{"search_direct_flight", "search_onestop_flight", "list_all_airports", "calculate"} {
		if !slices.Contains(open, want) {
			t.Errorf("airline open tools %v lack %s", open, want)
		}
	}
	for _, not := range []string{"get_reservation_details", "book_reservation", "get_user_details"} {
		if slices.Contains(open, not) {
			t.Errorf("airline open tools include %s", not)
		}
	}
}

func TestLanguage(t *testing.T) {
	words := []struct{ in, want string }{
		{"total_baggages", "total baggages"}, {"petId", "pet id"}, {"Passkeys_RelyingParty_Id", "passkeys relying party id"},
		{"reservations", "reservations"},
	}
	for _, tc := range words {
		if got := Words(tc.in); got != tc.want {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	singular := []struct{ in, want string }{{"reservations", "reservation"}, {"categories", "category"}, {"addresses", "address"},
		{"status", "status"}, {"payment methods", "payment method"}, {"boxes", "box"},
		{"emojis", "emoji"}, {"guild emojis", "guild emoji"}, {"kiwis", "kiwi"}, {"basis", "basis"}, {"axis", "axis"}, {"tennis", "tennis"}, {"iris", "iris"}}
	for _, tc := range singular {
		if got := Singular(tc.in); got != tc.want {
			t.Errorf("Singular(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	money := map[string]bool{"refund_amount": true, "baggage_fee": true, "total": true, "total_baggages": false, "price_difference": true,
		"nonfree_baggages": false, "duration_minutes": false, "deposit": false, "charge": true}
	for name, want := range money {
		if got := IsMoney(name); got != want {
			t.Errorf("IsMoney(%q) = %v", name, got)
		}
	}
	phrases := []struct{ desc, noun, kind, want string }{
		{"Cancels a reservation.", "reservation", TargetColl, "cancel <target>"},
		{"Update the baggage information of a reservation. Be careful.", "reservation", TargetColl, "update the baggage information of <target>"},
		{"Updates an existing pet by Id", "pet", TargetColl, "update <target>"},
		{"Modifies the flights", "reservation", TargetColl, "modify the flights for <target>"},
		{"Change the email address of a member.", "account", TargetUser, "change the email address of <target>"},
		{"Create a new item in the catalogue.", "", TargetNone, "create a new item in the catalogue"},
		{"Update a Kubernetes Cluster", "cluster", TargetColl, "update <target>"},
		{"Create Alert Policy", "", TargetNone, "create an alert policy"},
		{"List All Droplets", "", TargetNone, "list all droplets"},
		{"Initiate an Image Action", "image", TargetColl, "initiate an action for <target>"},
		{"Create a New VPC", "", TargetNone, "create a new VPC"},
		{"Create a PostgreSQL Database Pool", "", TargetNone, "create a PostgreSQL database pool"},
		{"Create a member in Discord.", "", TargetNone, "create a member in Discord"},
		{"Create a new stage instance", "stage instance", TargetColl, "create <target>"},
	}
	for _, tc := range phrases {
		if got := withTarget(imperative(firstSentence(tc.desc)), tc.noun, tc.kind); got != tc.want {
			t.Errorf("phrase of %q = %q, want %q", tc.desc, got, tc.want)
		}
	}
	// A phrase with nothing to name its target drops the target and its
	// preposition.
	for _, tc := range []struct{ phrase, target, want string }{
		{"create a new stage instance for <target>", "", "create a new stage instance"},
		{"cancel <target>", "", "cancel"},
		{"create a new stage instance for <target>", "guild 7", "create a new stage instance for guild 7"},
	} {
		if got := FillPhrase(tc.phrase, tc.target, nil); got != tc.want {
			t.Errorf("FillPhrase(%q, %q) = %q, want %q", tc.phrase, tc.target, got, tc.want)
		}
	}
	if got := Plain("{book|reserve} {a flight|a {long|short} trip} <target>"); got != "book a flight <target>" {
		t.Errorf("Plain = %q", got)
	}
	labels := []struct {
		where map[string]string
		pick  string
		want  string
	}{
		{map[string]string{"status": "active", "origin": "SFO"}, "max:created_at", "my most recent active reservation from SFO"},
		{map[string]string{"cabin": "basic_economy"}, "", "my reservation with cabin basic economy"},
		{map[string]string{"priority": "high"}, "min:total_baggages", "my reservation with priority high and with the lowest total baggages"},
	}
	for _, tc := range labels {
		if got := RecordLabel(&CollModel{Noun: "reservation"}, tc.where, tc.pick, true); got != tc.want {
			t.Errorf("RecordLabel(%v, %s) = %q, want %q", tc.where, tc.pick, got, tc.want)
		}
	}
	// The pack's words for one value and for an order.
	said := &CollModel{Noun: "reservation", Say: map[string]string{"insurance=no": "without travel insurance", "max:total_baggages": "with the most checked bags",
		"cabin": "in {value|words}"}}
	for _, tc := range []struct {
		where map[string]string
		pick  string
		want  string
	}{
		{map[string]string{"insurance": "no"}, "max:total_baggages", "my reservation without travel insurance with the most checked bags"},
		{map[string]string{"insurance": "yes"}, "min:total_baggages", "my reservation with insurance yes and with the lowest total baggages"},
		{map[string]string{"cabin": "basic_economy"}, "", "my reservation in basic economy"},
	} {
		if got := RecordLabel(said, tc.where, tc.pick, true); got != tc.want {
			t.Errorf("RecordLabel(%v, %s) with say = %q, want %q", tc.where, tc.pick, got, tc.want)
		}
	}
	slot := &ParamModel{Choices: []string{"0", "1", "5"}, Say: map[string]string{"0": "no checked bags", "*": "{value} checked bags"}}
	for v, want := range map[string]string{"0": "no checked bags", "5": "5 checked bags"} {
		if got := SaySlot(slot, v); got != want {
			t.Errorf("SaySlot(%s) = %q, want %q", v, got, want)
		}
	}
	if got := SaySlot(&ParamModel{Choices: []string{"a"}}, "a"); got != "" {
		t.Errorf("SaySlot without say = %q", got)
	}
	if got := FormatValue(12.5); got != "12.50" {
		t.Errorf("FormatValue(12.5) = %q", got)
	}
	if got := SayValue("price_difference", -435.0); got != "-$435" {
		t.Errorf("SayValue = %q, want -$435", got)
	}
	if got := SayValue("refund_amount", 300.0); got != "$300" {
		t.Errorf("SayValue = %q", got)
	}
}

// FuzzPlain checks the phrase-hint renderer on any template a pack
// author writes: it never panics and leaves no unbalanced group open.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"{book|reserve} {a flight|a trip} {target}", "{{a|b}|c", "}{|", "plain text", "{a|{b|{c|d}}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = Plain(s)
		w := &WriteModel{Phrase: s, Name: "do_it", Tool: &tools.Tool{Name: "do_it", Description: s}, TargetKind: TargetNone, param: map[string]*ParamModel{}}
		_ = FillPhrase(w.VerbPhrase(), "x", map[string]string{"a": "b"})
	})
}

// FuzzDecodeOutputs checks what the model reads from tool observations
// (a pack's handlers are outside input): the user key of an identify
// result and typed customer text never panic.
func FuzzDecodeOutputs(f *testing.F) {
	for _, s := range []string{`"c1"`, `{"member_id":"M1"}`, `null`, `Error: no`, `[1,2]`, `{"member_id":{"x":1}}`, `"`, `12.5`} {
		f.Add(s)
	}
	m := &Model{Users: &UserModel{Coll: &CollModel{Key: "member_id"}}}
	schemas := []map[string]any{{"type": "integer"}, {"type": "number"}, {"type": "boolean"}, {"type": "array", "items": map[string]any{"type": "integer"}}, {"type": []any{"string", "null"}}}
	f.Fuzz(func(t *testing.T, s string) {
		_ = m.UserKeyOf(s)
		_ = Decode(s)
		for _, sc := range schemas {
			_ = Typed(sc, s)
		}
	})
}

// TestCachedReadText: a read the generator made first (keeping only the
// decoded value) later gives the agent the very text the tool answers.
// list_all_product_types answers with JSON text in Python's spacing,
// which rendering the decoded value would compact.
func TestCachedReadText(t *testing.T) {
	ctx := context.Background()
	m := models(t)["retail"]
	args := map[string]any{}
	if _, ok := m.Read(ctx, nil, "list_all_product_types", args); !ok {
		t.Fatal("list_all_product_types failed")
	}
	st := m.Base.NewState()
	got := m.Call(ctx, st, "list_all_product_types", "{}").Output
	want := m.Kit.Call(ctx, m.Base.NewState(), "list_all_product_types", "{}").Output
	if got != want {
		t.Errorf("the cached read gives %.60q, the tool %.60q", got, want)
	}
}

// TestCachedReadAfterWrite: a read served from the base's answers
// after a write gives what the tool gives on that state, whether the
// write touched the records the read used or others.
func TestCachedReadAfterWrite(t *testing.T) {
	ctx := context.Background()
	m := models(t)["retail"]
	users := m.Base.Keys("users")
	if len(users) < 2 {
		t.Fatal("the retail base has fewer than two users")
	}
	args := func(u string) string { return `{"user_id":"` + u + `"}` }
	for _, u := range users[:2] {
		m.Call(ctx, m.Base.NewState(), "get_user_details", args(u)) // the base's answers, cached
	}
	st := m.Base.NewState()
	write := `{"user_id":"` + users[0] + `","address1":"1 New St","address2":"","city":"Austin","state":"TX","country":"USA","zip":"78701"}`
	if res := m.Kit.Call(ctx, st, "modify_user_address", write); res.Err {
		t.Fatalf("modify_user_address: %s", res.Output)
	}
	for _, u := range users[:2] {
		got := m.Call(ctx, st, "get_user_details", args(u)).Output
		want := m.Kit.Call(ctx, st.Fork(), "get_user_details", args(u)).Output
		if got != want {
			t.Errorf("user %s after the write: the model gives %.80q, the tool %.80q", u, got, want)
		}
	}
	if got := m.Call(ctx, st, "get_user_details", args(users[0])).Output; !strings.Contains(got, "1 New St") {
		t.Errorf("the changed user reads %.120q, without the new address", got)
	}
}

func TestWithinBounds(t *testing.T) {
	for _, tc := range []struct {
		schema map[string]any
		text   string
		want   bool
	}{
		{map[string]any{"type": "integer", "minimum": 8000.0}, "28", false},
		{map[string]any{"type": "integer", "minimum": 8000.0}, "96000", true},
		{map[string]any{"type": []any{"integer", "null"}, "maximum": 10.0}, "11", false},
		{map[string]any{"type": "number", "exclusiveMinimum": 0.0}, "0", false},
		{map[string]any{"type": "number", "exclusiveMaximum": 1.0}, "0.5", true},
		{map[string]any{"type": "string", "minLength": 3.0}, "ab", false},
		{map[string]any{"type": "string", "maxLength": 3.0}, "été", true},
		{map[string]any{"type": "string", "maxLength": 3.0}, "abcd", false},
		{map[string]any{"type": "string"}, "anything", true},
		// A value of another type is out of bounds: a record's "budget
		// quick" is no permissions integer.
		{map[string]any{"type": "integer", "minimum": 1.0}, "not a number", false},
		{map[string]any{"type": []any{"integer", "null"}}, "budget quick", false},
		{map[string]any{"type": "boolean"}, "true", true},
	} {
		if got := WithinBounds(tc.schema, tc.text); got != tc.want {
			t.Errorf("WithinBounds(%v, %q) = %v, want %v", tc.schema, tc.text, got, tc.want)
		}
	}
}

func TestEnumOf(t *testing.T) {
	consts := func(vals ...string) []any {
		var out []any
		for _, v := range vals {
			out = append(out, map[string]any{"const": v, "title": v})
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		schema map[string]any
		want   []string
	}{
		{"enum", map[string]any{"enum": []any{"a", nil, "b"}}, []string{"a", "b"}},
		{"const", map[string]any{"const": "only"}, []string{"only"}},
		// Discord's action: allOf[anyOf[const…]] with a title per value.
		{"consts in allOf", map[string]any{"type": "string", "allOf": []any{map[string]any{"anyOf": consts("STARTED", "APPROVED")}}}, []string{"STARTED", "APPROVED"}},
		{"nullable consts", map[string]any{"oneOf": append(consts("x"), map[string]any{"type": "null"})}, []string{"x"}},
		// A branch that takes any string leaves the values open.
		{"open branch", map[string]any{"anyOf": append(consts("x"), map[string]any{"type": "string"})}, nil},
		{"none", map[string]any{"type": "string"}, nil},
	} {
		if got := enumOf(tc.schema); !slices.Equal(got, tc.want) {
			t.Errorf("%s: enumOf = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestAttribute(t *testing.T) {
	for _, tc := range []struct {
		field string
		v     any
		want  string
	}{
		{"cabin", "basic_economy", "cabin basic economy"},
		{"duration_minutes", 144.0, "duration 144 minutes"},
		{"created_at", "2024-04-06T06:03:00-05:00", "created April 6, 2024 at 6:03 AM"},
		{"scheduled_departure", "2024-05-16T14:25:00-05:00", "scheduled departure May 16, 2024 at 2:25 PM"},
		{"price", 233.0, "price $233"},
		{"date", "2024-05-16", "date 2024-05-16"},
		{"flights.origin", "DEN", "origin DEN"},
	} {
		if got := Attribute(tc.field, tc.v); got != tc.want {
			t.Errorf("Attribute(%q, %v) = %q, want %q", tc.field, tc.v, got, tc.want)
		}
	}
}

func TestA(t *testing.T) {
	for in, want := range map[string]string{"itinerary": "an itinerary", "order": "an order", "flight": "a flight", "user": "a user", "unit": "a unit", "event": "an event"} {
		if got := A(in); got != want {
			t.Errorf("A(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStampWords(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"2025-09-08T09:00:00Z", "September 8, 2025 at 9:00 AM UTC", true},
		{"2024-04-06T18:03:30-05:00", "April 6, 2024 at 6:03:30 PM UTC-05:00", true},
		{"2024-05-16", "", false},
		{"2024-05-16T14:25", "May 16, 2024 at 2:25 PM", true}, // no zone given, none said
		{"2024-01-24T20:01:47", "January 24, 2024 at 8:01:47 PM", true},
		{"HAT001", "", false},
	} {
		got, ok := StampWords(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("StampWords(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestClockWords(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"23:30:00", "11:30 PM", true},
		{"03:10:00+1", "3:10 AM the next day", true},
		{"00:05:00+2", "12:05 AM 2 days later", true},
		{"12:00:00", "12:00 PM", true},
		{"25:00:00", "", false},
		{"03:10:00+x", "", false},
		{"2024-05-16", "", false},
	} {
		got, ok := ClockWords(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ClockWords(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDetailText: a search's detail says a candidate in the pack's words,
// its legs by their identifying fields, times as times and money as
// money, never a field's name.
func TestDetailText(t *testing.T) {
	cand := map[string]any{
		"flights": []any{
			map[string]any{"flight_number": "SY203", "date": "2024-06-01"},
			map[string]any{"flight_number": "SY355", "date": "2024-06-01"},
		},
		"scheduled_departure_time_est": "18:00:00", "scheduled_arrival_time_est": "01:50:00+1",
		"price": float64(313), "fare": 57.5, "seats": float64(5), "cabin": "basic_economy",
	}
	for _, tc := range []struct{ tmpl, want string }{
		{"taking {flights}: it leaves at {scheduled_departure_time_est|clock}, lands at {scheduled_arrival_time_est|clock}",
			"taking SY203 on June 1, 2024 and SY355 on June 1, 2024: it leaves at 6:00 PM, lands at 1:50 AM the next day"},
		{"{price|money} a passenger, {fare|money} in fees, {seats} seats left", "$313 a passenger, $57.50 in fees, 5 seats left"},
		{"in {cabin|words}", "in basic economy"},
		{"{missing} seats", "seats"},
	} {
		if got := DetailText(tc.tmpl, cand, []string{"flight_number"}); got != tc.want {
			t.Errorf("DetailText(%q) = %q, want %q", tc.tmpl, got, tc.want)
		}
	}
}

// TestVerbPhraseNamesTarget: a phrase hint that does not say what the
// write acts on gets it, so no customer asks for a write on a record
// they never name.
func TestVerbPhraseNamesTarget(t *testing.T) {
	coll := &CollModel{Name: "applications", Noun: "application"}
	for _, tc := range []struct {
		phrase, kind, want string
	}{
		{"{create|add} a new command", TargetColl, "{create|add} a new command for <target>"},
		{"{add|create} a command for {target}", TargetColl, "{add|create} a command for <target>"},
		{"{get compensation|be compensated}", TargetUser, "{get compensation|be compensated}"},
		{"{create|add} a pet", TargetNone, "{create|add} a pet"},
	} {
		w := &WriteModel{Phrase: tc.phrase, Name: "w", Tool: &tools.Tool{Name: "w"}, TargetKind: tc.kind, param: map[string]*ParamModel{}}
		if tc.kind == TargetColl {
			w.Coll = coll
		}
		if got := w.VerbPhrase(); got != tc.want {
			t.Errorf("VerbPhrase(%q, %s) = %q, want %q", tc.phrase, tc.kind, got, tc.want)
		}
	}
}

// TestDescription: the agent says a record in the pack's words, each
// attribute once, the way a person states it.
func TestDescription(t *testing.T) {
	res := &CollModel{Noun: "reservation", Describe: []string{"origin", "destination", "cabin", "flight_type", "status", "insurance"},
		Compare: []string{"created_at", "total_baggages"},
		Say: map[string]string{"insurance=yes": "with travel insurance", "insurance=no": "without travel insurance",
			"flight_type=round_trip": "for a round trip", "total_baggages=1": "with one checked bag", "total_baggages": "with {value} checked bags",
			"cabin": "in {value|words}"}}
	bare := &CollModel{Noun: "item", Describe: []string{"category"}, Compare: []string{"price", "stock"}}
	for _, tc := range []struct {
		c    *CollModel
		obj  map[string]any
		want string
	}{
		{res, map[string]any{"origin": "ORD", "destination": "MSP", "cabin": "economy", "flight_type": "round_trip", "status": "active",
			"insurance": "yes", "created_at": "2024-04-11T18:11:00-05:00", "total_baggages": 4.0},
			"an active reservation from ORD to MSP in economy for a round trip with travel insurance and 4 checked bags, created April 11, 2024 at 6:11 PM"},
		{res, map[string]any{"origin": "PHX", "destination": "SFO", "cabin": "basic_economy", "status": "cancelled", "insurance": "no", "total_baggages": 1.0},
			"a cancelled reservation from PHX to SFO in basic economy without travel insurance and with one checked bag"},
		{bare, map[string]any{"category": "kitchen", "price": 20.9, "stock": 5.0}, "an item, category kitchen, price $20.90 and stock 5"},
		{bare, map[string]any{"name": "no described field"}, ""},
	} {
		if got := Description(tc.c, tc.obj); got != tc.want {
			t.Errorf("Description(%v)\n got %q\nwant %q", tc.obj, got, tc.want)
		}
	}
}

// TestElementText: one element of a list argument or a search result,
// ids verbatim, places and dates in the order people say them.
func TestElementText(t *testing.T) {
	ids := []string{"flight_number"}
	for _, tc := range []struct {
		e     map[string]any
		first []string
		say   map[string]string
		want  string
	}{
		{map[string]any{"flight_number": "SY264", "origin": "MCO", "destination": "DEN", "date": "2024-06-04", "price": 199.0}, nil, nil,
			"SY264 from MCO to DEN on June 4, 2024 (price $199)"},
		{map[string]any{"flight_number": "SY325", "date": "2024-05-25"}, nil, nil, "SY325 on May 25, 2024"},
		{map[string]any{"origin": "ORD", "destination": "MCO", "cabin": "basic_economy", "stops": 0.0, "via": "", "price": 127.0, "duration_minutes": 403.0},
			[]string{"price", "duration_minutes"}, map[string]string{"stops=0": "with no stops", "cabin": "in {value|words}"},
			"from ORD to MCO in basic economy (price $127, duration 403 minutes, with no stops)"},
		{map[string]any{"score": 3.0}, nil, nil, "score 3"},
	} {
		if got := ElementText(tc.e, ids, tc.first, tc.say); got != tc.want {
			t.Errorf("ElementText(%v)\n got %q\nwant %q", tc.e, got, tc.want)
		}
	}
}

// TestSearchLabelWords: a customer's search names places from and to,
// dates as dates with the year once, and the pack's words for a value.
func TestSearchLabelWords(t *testing.T) {
	s := &SearchModel{Noun: "itinerary", Say: map[string]string{"stops=0": "with no stops", "cabin": "in {value|words}"}}
	got := SearchLabel(s, map[string][]string{"origin": {"SFO", "OAK"}, "date": {"2024-05-16", "2024-05-17", "2024-05-18"}}, nil,
		map[string]string{"destination": "JFK", "stops": "0", "cabin": "economy"}, "min:price")
	want := "the cheapest itinerary from SFO or OAK to JFK on May 16, May 17 or May 18, 2024 in economy with no stops"
	if got != want {
		t.Errorf("SearchLabel\n got %q\nwant %q", got, want)
	}
	// A round trip says the day the customer comes back.
	s.Return = &pack.Return{Swap: []string{"origin", "destination"}, After: "date"}
	got = SearchLabel(s, map[string][]string{"origin": {"SFO"}, "destination": {"JFK"}, "date": {"2024-05-16"}},
		map[string][]string{"origin": {"JFK"}, "destination": {"SFO"}, "date": {"2024-05-19"}}, map[string]string{"cabin": "economy"}, "min:price")
	if want := "the cheapest round trip from SFO to JFK on May 16, 2024 in economy, returning on May 19, 2024"; got != want {
		t.Errorf("SearchLabel of a round trip\n got %q\nwant %q", got, want)
	}
	if got := valuesWords("date", []string{"2024-05-31", "2025-06-01"}); got != "May 31, 2024 or June 1, 2025" {
		t.Errorf("dates of two years: %q", got)
	}
}

func TestDatesInWords(t *testing.T) {
	for in, want := range map[string]string{
		"flight SY161 on 2024-05-13 has already departed": "flight SY161 on May 13, 2024 has already departed",
		"the schedule covers 2024-05-13 to 2024-06-12":    "the schedule covers May 13, 2024 to June 12, 2024",
		"no date here":          "no date here",
		"not a day: 2024-13-45": "not a day: 2024-13-45",
	} {
		if got := DatesInWords(in); got != want {
			t.Errorf("DatesInWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValueWords(t *testing.T) {
	for in, want := range map[string]string{
		"basic_economy": "basic economy",
		"CREDIT_CARD":   "credit card",
		"AMOLED":        "AMOLED", // a name or an acronym stays
		"us_east":       "us east",
		"LessThan":      "LessThan",
		"ORD":           "ORD",
	} {
		if got := ValueWords(in); got != want {
			t.Errorf("ValueWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWordSlot: a slot the pack gives no words is answered as a person
// answers: a setting by its name, a list of codes by one code.
func TestWordSlot(t *testing.T) {
	b := &ParamModel{Name: "is_enabled", Source: SrcSlot, Schema: map[string]any{"type": "boolean"}}
	wordSlot(b)
	if !slices.Equal(b.Choices, []string{"true", "false"}) || SaySlot(b, "true") != "enabled" || SaySlot(b, "false") != "not enabled" {
		t.Errorf("boolean slot: choices %v, says %q / %q", b.Choices, SaySlot(b, "true"), SaySlot(b, "false"))
	}
	regions := &ParamModel{Name: "regions", Source: SrcSlot, Schema: map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"us_east", "eu_west"}}}}
	wordSlot(regions)
	if !slices.Equal(regions.Choices, []string{"us_east", "eu_west"}) {
		t.Errorf("array slot choices %v", regions.Choices)
	}
	if v := Typed(regions.Schema, regions.Choices[1]); !reflect.DeepEqual(v, []any{"eu_west"}) {
		t.Errorf("array slot typed %v", v)
	}
	said := &ParamModel{Name: "insurance", Source: SrcSlot, Schema: map[string]any{"type": "boolean"}, Say: map[string]string{"true": "travel insurance"}}
	wordSlot(said)
	if said.Choices != nil {
		t.Errorf("a slot the pack words is left as it is: %v", said.Choices)
	}
}

// TestAskAbout: a question about a field, and its answer, read as a
// person says them, and the answer holds the value verbatim.
func TestAskAbout(t *testing.T) {
	res := &CollModel{Name: "reservations", Say: map[string]string{
		"insurance=yes": "with travel insurance", "insurance=no": "without travel insurance",
		"total_baggages": "with {value} checked bags"}}
	for _, tc := range []struct {
		coll         *CollModel
		field        string
		v            any
		kind, answer string
	}{
		{res, "insurance", "no", AskHas, "No, reservation X doesn't have travel insurance."},
		{res, "insurance", "yes", AskHas, "Yes, reservation X has travel insurance."},
		{res, "total_baggages", 1.0, AskCount, "Reservation X has 1 checked bag."},
		{res, "total_baggages", 3.0, AskCount, "Reservation X has 3 checked bags."},
		{res, "created_at", "2024-05-12T06:33:00-05:00", AskWhen, "Reservation X was created on May 12, 2024 at 6:33 AM UTC-05:00 (2024-05-12T06:33:00-05:00)."},
		{nil, "borrowed_on", "2025-03-06", AskWhen, "Reservation X was borrowed on 2025-03-06."},
		{nil, "pages", 151.0, AskCount, "Reservation X has 151 pages."},
		{nil, "duration_minutes", 403.0, AskWhat, "The duration of reservation X is 403 minutes."},
		{nil, "price", 127.0, AskWhat, "The price of reservation X is $127."},
		{nil, "status", "active", AskWhat, "The status of reservation X is active."},
		{nil, "address", 3.0, AskWhat, "The address of reservation X is 3."},
	} {
		a := AskAbout(tc.coll, tc.field, tc.v)
		if a.Kind != tc.kind {
			t.Errorf("%s: kind %s, want %s", tc.field, a.Kind, tc.kind)
		}
		if got := a.Answer("reservation X", tc.field, tc.v); got != tc.answer {
			t.Errorf("%s: %q, want %q", tc.field, got, tc.answer)
		}
	}
}

// A list that needs several elements (the two VPCs a peering joins) is
// drawn and said as that many distinct elements, and typed back into
// them; a list that needs one stays one element.
func TestListOfSeveral(t *testing.T) {
	two := map[string]any{"type": "array", "minItems": 2.0, "items": map[string]any{"type": "string", "enum": []any{"a", "b", "c"}}}
	m := &Model{}
	vals := m.SchemaValues(rand.New(rand.NewPCG(1, 2)), "vpc_ids", two)
	if len(vals) == 0 {
		t.Fatal("no values for a list of at least 2")
	}
	for _, v := range vals {
		parts := strings.Split(v, ", ")
		if len(parts) != 2 || parts[0] == parts[1] {
			t.Errorf("value %q: want 2 distinct elements", v)
		}
		got, _ := Typed(two, v).([]any)
		if len(got) != 2 || got[0] != parts[0] || got[1] != parts[1] {
			t.Errorf("Typed(%q) = %v, want its 2 elements", v, got)
		}
	}
	one := map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	if got, _ := Typed(one, "a, b").([]any); len(got) != 1 || got[0] != "a, b" {
		t.Errorf("Typed of a list of one = %v, want the text as its element", got)
	}
}

// An object of one scalar (access_tokens: {hugging_face_token}) is
// stated as that value and typed back into the object; one of two
// properties is not a slot.
func TestObjectOfOne(t *testing.T) {
	tokens := map[string]any{"type": "object", "properties": map[string]any{
		"hugging_face_token": map[string]any{"type": "string", "examples": []any{"hf_Qx81kPaw"}}}}
	m := &Model{}
	rng := rand.New(rand.NewPCG(1, 2))
	if vals := m.SchemaValues(rng, "access_tokens", tokens); !slices.Equal(vals, []string{"hf_Qx81kPaw"}) {
		t.Errorf("SchemaValues = %v, want the property's example", vals)
	}
	if got := Typed(tokens, "hf_Qx81kPaw"); !reflect.DeepEqual(got, map[string]any{"hugging_face_token": "hf_Qx81kPaw"}) {
		t.Errorf("Typed = %v, want the object holding the value", got)
	}
	two := map[string]any{"type": "object", "properties": map[string]any{
		"a": map[string]any{"type": "string"}, "b": map[string]any{"type": "string"}}}
	if vals := m.SchemaValues(rng, "pair", two); len(vals) != 0 {
		t.Errorf("SchemaValues of a two-property object = %v, want none", vals)
	}
}

// An example that stands for a value the reader fills in ($HF_TOKEN,
// <token>, {{api_key}}, YOUR_API_KEY) is never a value a customer says:
// the slot is drawn as without it, a credential as an opaque string.
func TestPlaceholderExamples(t *testing.T) {
	m := &Model{}
	for _, ex := range []string{"$HF_TOKEN", "${API_KEY}", "<token>", "{{api_key}}", "YOUR_API_KEY", "your-token-here"} {
		s := map[string]any{"type": "string", "examples": []any{ex}}
		vals := m.SchemaValues(rand.New(rand.NewPCG(1, 2)), "hugging_face_token", s)
		if len(vals) == 0 {
			t.Errorf("%s: no values", ex)
		}
		for _, v := range vals {
			if v == ex || len(v) < 20 || strings.ContainsAny(v, " $<{") {
				t.Errorf("%s: value %q, want an opaque token", ex, v)
			}
		}
	}
	for _, real := range []string{"ns1.digitalocean.com", "$5 off", "Your order", "hf_Qx81kPaw", "{ok}"} {
		if Placeholder(real) {
			t.Errorf("Placeholder(%q) = true, want a value", real)
		}
	}
}

// A customer never chooses an enum's "no value" member, and a value of
// a field of the same name in another collection is offered only when
// it is not another enum's UPPER_SNAKE code (a DNS record's type is not
// TRACE_SPAN_TYPE_TOOL).
func TestChoosableValues(t *testing.T) {
	m := &Model{pools: map[string][]any{"type": {"TRACE_SPAN_TYPE_LLM", "TRACE_SPAN_TYPE_UNKNOWN", "k8s"}}}
	for _, tc := range []struct {
		name   string
		schema map[string]any
		want   []string
	}{
		{"span_type", map[string]any{"type": "string", "enum": []any{"TRACE_SPAN_TYPE_UNKNOWN", "TRACE_SPAN_TYPE_TOOL", "STATUS_UNSPECIFIED", "UNKNOWN"}}, []string{"TRACE_SPAN_TYPE_TOOL", "UNKNOWN"}},
		{"type", map[string]any{"type": "string"}, []string{"k8s"}},
	} {
		if got := m.SchemaValues(rand.New(rand.NewPCG(1, 2)), tc.name, tc.schema); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := Choosable([]string{"ROOT_SQUASH", "SQUASH_UNSPECIFIED", "CREDIT_CARD"}); !slices.Equal(got, []string{"ROOT_SQUASH", "CREDIT_CARD"}) {
		t.Errorf("Choosable = %v", got)
	}
}

// A record keyed within its parents is named by its own key: the last
// part of its database key, whatever that key holds.
func TestKeyText(t *testing.T) {
	for _, tc := range []struct {
		within []string
		key    string
		want   string
	}{
		{nil, "a/b", "a/b"},
		{[]string{"guild_id", "user_id"}, "6814/64/0", "0"},
		{[]string{"channel_id"}, "21/refs/heads/main", "refs/heads/main"},
	} {
		if got := (&CollModel{Within: tc.within}).KeyText(tc.key); got != tc.want {
			t.Errorf("KeyText(%q) within %v = %q, want %q", tc.key, tc.within, got, tc.want)
		}
	}
}

// Accepts keeps its answers on a pristine state only: a reservation the
// policy compensates on the base is refused once its user is a regular
// member and it an uninsured economy one, though the target's arguments
// are the same.
func TestAcceptsKeepsPristineAnswersOnly(t *testing.T) {
	m := models(t)["airline"]
	w := m.Write("send_certificate")
	if w == nil {
		t.Fatal("airline has no send_certificate write")
	}
	ctx := context.Background()
	for _, key := range m.Base.Keys("reservations") {
		v, _ := m.Base.Get("reservations", key)
		obj, err := tools.ToObject(v)
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := w.Accepts(ctx, m.Kit, m.Base.NewState(), obj); !ok {
			continue
		}
		if ok, _ := w.Accepts(ctx, m.Kit, m.Base.NewState(), obj); !ok {
			t.Fatalf("reservation %s: accepted on the base once, then not", key)
		}
		plain := maps.Clone(obj)
		plain["insurance"], plain["cabin"] = "no", "economy"
		uv, _ := m.Base.Get("users", tools.Text(obj["user_id"]))
		user, err := tools.ToObject(uv)
		if err != nil {
			t.Fatal(err)
		}
		user = maps.Clone(user)
		user["membership"] = "regular"
		st := m.Base.NewState()
		if err := st.Put("reservations", key, plain); err != nil {
			t.Fatal(err)
		}
		if err := st.Put("users", tools.Text(obj["user_id"]), user); err != nil {
			t.Fatal(err)
		}
		if ok, refused := w.Accepts(ctx, m.Kit, st, obj); ok || !refused {
			t.Errorf("reservation %s of a regular member, uninsured, in economy: Accepts = %v, refused %v; want refused", key, ok, refused)
		}
		return
	}
	t.Fatal("no reservation airline compensates on its base")
}

// CountChecks counts the calls CheckCalls makes, on every record of
// every write with checks.
func TestCountChecks(t *testing.T) {
	m := models(t)["airline"]
	writes := 0
	for _, w := range m.Writes {
		if len(w.Checks) == 0 || w.Coll == nil {
			continue
		}
		writes++
		some := false
		for _, key := range m.Base.Keys(w.Coll.Name) {
			v, _ := m.Base.Get(w.Coll.Name, key)
			obj, err := tools.ToObject(v)
			if err != nil {
				t.Fatal(err)
			}
			want := len(w.CheckCalls(obj))
			if got := w.CountChecks(obj); got != want {
				t.Fatalf("%s on %s %s: CountChecks = %d, want %d", w.Name, w.Coll.Name, key, got, want)
			}
			some = some || want > 0
		}
		if !some {
			t.Errorf("%s: no record has a check call", w.Name)
		}
	}
	if writes == 0 {
		t.Fatal("airline has no write with checks")
	}
}

// A yes/no option is said by its name, never as an adjective ("the
// silver 5K yes version").
func TestElementWordsBooleans(t *testing.T) {
	elem := map[string]any{"options": map[string]any{"color": "silver", "resolution": "5K", "waterproof": "yes", "backlight": "no"}}
	for _, tc := range []struct {
		say   string
		where map[string]string
		want  string
	}{
		{"{options} version", map[string]string{"options.color": "silver", "options.resolution": "5K", "options.waterproof": "yes"}, "silver 5K waterproof version"},
		{"{options} version", map[string]string{"options.backlight": "no", "options.color": "silver"}, "no backlight silver version"},
		{"", map[string]string{"options.waterproof": "true"}, "waterproof"},
		{"", map[string]string{"options.color": "silver"}, "silver"},
	} {
		if got := ElementWords(tc.say, tc.where, elem); got != tc.want {
			t.Errorf("ElementWords(%q, %v) = %q, want %q", tc.say, tc.where, got, tc.want)
		}
	}
	if got := FillSay("{options} version", elem); got != "no backlight, silver, 5K, waterproof version" {
		t.Errorf("FillSay = %q", got)
	}
}

// A spec's example that only shows the type or elides the value
// ("example string", a keyboard-run UUID, "sk-ant-1234…" for an OpenAI
// key, "-----BEGIN …\n...\n") is not a value a customer says: the slot
// is drawn as without it. A real example is said without the quotes
// some specs write inside it.
func TestSpecPlaceholderExamples(t *testing.T) {
	m := &Model{pools: map[string][]any{"size": {"small", "large"}, "database_id": {"a3c1f0d2-5b7e-4c11-9f20-1d2e3f4a5b6c"}}}
	for _, tc := range []struct {
		name, example string
		want          []string // nil: anything but the example
	}{
		{"size", "example string", []string{"small", "large"}},
		{"size", `"example string"`, []string{"small", "large"}},
		{"database_id", `"12345678-1234-1234-1234-123456789012"`, []string{"a3c1f0d2-5b7e-4c11-9f20-1d2e3f4a5b6c"}},
		{"database_id", "00000000-0000-0000-0000-000000000000", []string{"a3c1f0d2-5b7e-4c11-9f20-1d2e3f4a5b6c"}},
		{"database_id", `"123e4567-e89b-12d3-a456-426614174000"`, []string{"a3c1f0d2-5b7e-4c11-9f20-1d2e3f4a5b6c"}},
		{"anthropic_key_uuid", `"12345678-1234-1234-1234-123456789012"`, nil},
		{"name", "example name", nil},
		{"api_key", `"sk-ant-12345678901234567890123456789012"`, nil},
		{"api_key", `"sk-proj--123456789098765432123456789"`, nil},
		{"ca", `-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n`, nil},
		{"region", `"tor1"`, []string{"tor1"}},
		{"name", `"My Knowledge Base"`, []string{"My Knowledge Base"}},
		{"account_number", "100000000", []string{"100000000"}},
		{"day", "2024-01-15", []string{"2024-01-15"}},
		{"event_description", "Shares his love of the C...language", []string{"Shares his love of the C...language"}},
		{"api_key", "sk-...", nil},
	} {
		s := map[string]any{"type": "string", "examples": []any{tc.example}}
		got := m.SchemaValues(rand.New(rand.NewPCG(1, 2)), tc.name, s)
		// A list's example is a list of them ({examples: [["example
		// string"]]}): its elements are weighed the same.
		list := map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "examples": []any{[]any{tc.example}}}
		for _, v := range m.SchemaValues(rand.New(rand.NewPCG(1, 2)), tc.name, list) {
			if tc.want != nil && !slices.Contains(tc.want, v) || tc.want == nil && v == tc.example {
				t.Errorf("%s %s: list value %q, want one of %q", tc.name, tc.example, v, tc.want)
			}
		}
		if len(got) == 0 {
			t.Errorf("%s %s: no values", tc.name, tc.example)
			continue
		}
		if tc.want != nil {
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s %s: values %q, want %q", tc.name, tc.example, got, tc.want)
			}
			continue
		}
		for _, v := range got {
			if strings.HasSuffix(tc.name, "uuid") && !regexp.MustCompile(`^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$`).MatchString(v) {
				t.Errorf("%s %s: value %q, want a UUID as the placeholder shows", tc.name, tc.example, v)
			}
			if v == tc.example || strings.Contains(v, "sk-ant") || strings.Contains(v, "...") || strings.HasPrefix(v, `"`) {
				t.Errorf("%s %s: value %q is the placeholder", tc.name, tc.example, v)
			}
		}
	}
}
