package pack

import (
	"github.com/synth-data/synth/tools"
)

// ManifestFile is the name of a pack's manifest.
const ManifestFile = "domain.yaml"

// Manifest is a pack's domain.yaml. File names are relative to the pack
// folder.
type Manifest struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	// Policy is the agent's policy document (default policy.md).
	Policy string `json:"policy,omitempty"`
	// Tools is the OpenAI tools array (default tools.json); every function
	// carries "x-kind": read, write or generic.
	Tools string `json:"tools,omitempty"`
	// Handlers is the Starlark file with one function per tool
	// (default handlers.star): def TOOL(db, args): return VALUE.
	Handlers string `json:"handlers,omitempty"`
	// PolicyCode is a Starlark file of the policy's functions, each
	// def NAME(db, args):, that compute: arguments name: a pack whose
	// tools are built-in handlers keeps its policy's code here.
	PolicyCode string `json:"policy_code,omitempty"`
	// Database is the initial database as JSON: {collection: {key: record}}.
	// Exactly one of Database and Generator is set.
	Database string `json:"database,omitempty"`
	// Generator is a Starlark file defining generate(seed) that returns
	// the database deterministically.
	Generator string `json:"generator,omitempty"`
	// Holdout is a JSON file of tasks held out from generation (a
	// benchmark's test set): [{"id": ..., "writes": [{"name": TOOL,
	// "arguments": {...}}]}]. A blueprint whose ground-truth writes equal
	// one task's (same tools, same arguments) is never released.
	Holdout string `json:"holdout,omitempty"`
	// Clock is the fixed "now" (RFC 3339) handlers see as the global NOW.
	Clock string `json:"clock,omitempty"`
	// Collections describes the database's entity collections by name.
	Collections map[string]Collection `json:"collections"`
	// Users says which collection holds the users and how one is identified.
	Users Users `json:"users"`
	// Hints improve generated tasks and their language; all optional.
	Hints Hints `json:"hints,omitempty"`
	// Rules are the policy's checkable rules, besides DefaultRules.
	Rules []Rule `json:"rules,omitempty"`
	// Unchecked lists the policy's text no rule checks, with why.
	Unchecked []Unchecked `json:"unchecked,omitempty"`
	// Failures are the failures the write tools can return and the
	// recovery the policy prescribes for each.
	Failures []Failure `json:"failures,omitempty"`
	// Tasks is the task mix the domain is modelled on.
	Tasks Tasks `json:"tasks,omitzero"`
}

// Tasks is the mix of tasks a run draws when the user sets no control
// of its own: the domain knows what its real tasks look like (τ²'s
// airline writes nothing in 24 of its 50 tasks, its retail in 10 of 114).
type Tasks struct {
	// WriteWeights weighs tasks of 0, 1, ... MaxTaskWrites-1 writes when
	// the run sets neither --writes nor --write-weights; missing
	// trailing entries weigh 0.
	WriteWeights []float64 `json:"write_weights,omitempty"`
}

// MaxTaskWrites is how many write counts tasks.write_weights may weigh:
// 0 to 5, the default --writes range.
const MaxTaskWrites = 6

// Collection is one entity collection of the database.
type Collection struct {
	// Key is the field holding a record's key; it equals the record's key
	// in the database map, unless Within is set.
	Key string `json:"key"`
	// Within are the fields naming a record's parents when its key is
	// unique only within them: a member's role is keyed by the role's
	// id, which many members hold. The record's key in the database map
	// is then those fields' values and Key's, joined by "/"
	// ("6814/64/0" for role 0 of member 64 in guild 6814).
	Within []string `json:"within,omitempty"`
	// Owner is the field holding the key of the user the record belongs
	// to ("" for shared records such as products or flights).
	Owner string `json:"owner,omitempty"`
	// Noun is how a customer names one record ("reservation").
	Noun string `json:"noun,omitempty"`
	// Get is the read tool that returns one record by its key; inferred
	// when empty (a read tool whose only required parameter is Key).
	Get string `json:"get,omitempty"`
	// List is how the agent finds a user's records; inferred when empty.
	List *ListRef `json:"list,omitempty"`
	// Describe are dotted paths of attributes a customer can describe a
	// record by ("origin", "cabin"); inferred when empty.
	Describe []string `json:"describe,omitempty"`
	// Compare are dotted paths of numeric or date attributes a customer
	// can pick by ("the cheapest", "the most recent"); sum:PATH totals
	// the values at a path (an order's items.price).
	Compare []string `json:"compare,omitempty"`
	// Say words a Describe attribute in a customer's description: a
	// template with {value} per path ("items.name": "with the {value} in
	// it"), or a phrase for one value of it ("insurance=no": "without
	// travel insurance"); "max:PATH" and "min:PATH" word a Compare order
	// ("max:total_baggages": "with the most checked bags"). Without one
	// the attribute is said by its name.
	Say map[string]string `json:"say,omitempty"`
}

// ListRef names the read tool that lists a user's records of a collection
// and where its result holds their keys.
type ListRef struct {
	Tool string `json:"tool"`
	// Field is the dotted path in the tool's result holding the keys (or
	// the records); "" when the result itself is the list.
	Field string `json:"field,omitempty"`
	// By says the list is an object from one field of each record (its
	// name) to its key, as a catalogue of product names and ids is.
	By string `json:"by,omitempty"`
}

// Users says where the customers are and how the agent authenticates one.
type Users struct {
	Collection string `json:"collection"`
	// Name lists dotted paths joined with spaces to make the customer's
	// name (["name.first_name", "name.last_name"]).
	Name []string `json:"name,omitempty"`
	// Identify lists the ways to authenticate; a blueprint draws one.
	Identify []Identify `json:"identify"`
}

// Identify is one way to authenticate: a tool whose arguments are fields
// of the user's record; its result is (or contains) the user's key.
type Identify struct {
	Tool string `json:"tool"`
	// Args maps each tool parameter to a dotted path in the user record.
	Args map[string]string `json:"args"`
}

// Pack is a loaded pack, ready to build a domain from.
type Pack struct {
	Manifest Manifest
	Policy   string
	Tools    *tools.Toolkit
	Base     *tools.Base
	// Holdout are the held-out tasks' write sequences (see Manifest.Holdout).
	Holdout []HeldOut
	// Files are the pack's defining files by name (domain.yaml, tools.json,
	// handlers.star, ...), shipped in a release so it re-verifies alone.
	Files map[string][]byte
	// Computes are the functions of the policy code (or the handlers
	// file) that compute a write's argument (compute:NAME), by name: each
	// runs as a handler does, on the state before the write, with the
	// write's other arguments.
	Computes map[string]tools.Handler
	// Allows are the allow rules' functions, by rule name.
	Allows map[string]AllowFunc
}

// HeldOut is one held-out task: the writes its ground truth makes.
type HeldOut struct {
	ID     string `json:"id"`
	Writes []Call `json:"writes"`
}

// Call is one tool call of a held-out task.
type Call struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}
