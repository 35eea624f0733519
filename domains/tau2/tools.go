package tau2

import (
	_ "embed"
	"slices"
)

// The tools arrays τ²-bench shows the agent, as testdata/tau2_tools.py
// builds them from τ²'s tool code the way τ²'s Tool does (a pydantic
// model of the signature, descriptions from the docstring; titles, $defs
// and the anyOf of "FlightInfo | dict" included), each function with
// the "x-kind" of its @is_tool type.

//go:embed retail_tools.json
var retailTools []byte

//go:embed airline_tools.json
var airlineTools []byte

// RetailTools returns the tools.json of τ²'s retail domain (16 tools, in
// the order τ²'s RetailTools defines them). The caller owns the copy.
func RetailTools() []byte { return slices.Clone(retailTools) }

// AirlineTools returns the tools.json of τ²'s airline domain (14 tools).
func AirlineTools() []byte { return slices.Clone(airlineTools) }
