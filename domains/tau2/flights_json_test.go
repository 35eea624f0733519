package tau2

import (
	"encoding/json"
	"testing"

	"github.com/synth-data/synth/tools"
)

// TestSearchResultsMarshalAsEncodingJSON: the flight searches' answers
// write the JSON json.Marshal writes for them, byte for byte.
func TestSearchResultsMarshalAsEncodingJSON(t *testing.T) {
	date := "2024-05-16"
	f1 := &directFlight{FlightNumber: "HAT001", Origin: "JFK", Destination: "SFO", Status: "available",
		Departure: "06:00:00", Arrival: "12:00:00+1", Date: &date,
		Seats:  map[string]any{"basic_economy": int64(3), "economy": 12.0, "business": json.Number("4")},
		Prices: map[string]any{"basic_economy": int64(60), "economy": 150.5, "business": nil}}
	f2 := &directFlight{FlightNumber: "HAT<&>", Origin: "SFO", Destination: "\u2028\"x\"", Status: "available",
		Seats: []any{"odd", true}, Prices: nil}
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"direct", directFlights{f1, f2}},
		{"none", directFlights{}},
		{"nil", directFlights(nil)},
		{"with a nil", directFlights{nil, f2}},
		{"connections", connections{{f1, f2}, {f2, f1}}},
		{"no connection", connections{}},
	} {
		want, err := json.Marshal(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tools.Marshal(tc.v)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tc.name, got, err, want)
		}
	}
	// A value json.Marshal refuses is left to it, error and all.
	bad := directFlights{{Seats: map[string]any{"x": make(chan int)}}}
	if _, err := tools.Marshal(bad); err == nil {
		t.Error("a channel marshalled")
	}
}
