package retail

import _ "embed"

//go:embed policy.md
var policy string

// Policy returns the agent's system prompt for the retail domain.
func Policy() string { return policy }
