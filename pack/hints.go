package pack

// Hints are optional: without them synth infers tasks from tool
// parameters, result fields and the collections; with them a pack author
// steers which tasks exist and how customers phrase them.
type Hints struct {
	// Writes maps a write tool to how its arguments are found.
	Writes map[string]WriteHint `json:"writes,omitempty"`
	// Searches are read tools a customer's constraints are searched with
	// (flights by origin, destination and date).
	Searches []Search `json:"searches,omitempty"`
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
	// Args maps a parameter to its source: "target.PATH" (the chosen
	// record), "user.PATH" (the customer's record; several values at the
	// path mean the customer says which), "slot" (the customer states it;
	// drawn from the schema), "slot:A|B|C" (one of these), "const:JSON".
	Args map[string]string `json:"args,omitempty"`
	// Phrase is how a customer asks for it, in the usersim grammar
	// ("{cancel|call off} {target}").
	Phrase string `json:"phrase,omitempty"`
	// Outputs are dotted paths in the tool's result the agent must tell
	// the customer (a refund amount).
	Outputs []string `json:"outputs,omitempty"`
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
}
