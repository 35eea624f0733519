// Package model compiles a domain pack into what synth knows about its
// domain: the Model that the task generator, the simulated customer, the
// oracle agent, the verifier's domain rules and the engines share, so
// that a task's pieces mean the same thing to all of them.
//
// NewModel (model.go) reads the pack's manifest, tool schemas and
// database, hints first, inference after: how customers are found and
// authenticated (UserModel, IdentifyModel), the collections and how the
// agent lists and reads their records (CollModel, ListModel), the
// search families a customer's constraints feed (SearchModel, search.go,
// whose candidates may be built of legs: a connection of flights, one
// candidate per cabin with its prices summed), and the writes tasks are
// built on, each argument with its source (WriteModel, ParamModel; the
// structured sources pick, replace and choose, which the pack's function
// may build the argument around (Chosen, Compute), and the questions a
// customer may ask in args.go, the outputs computed after a write in
// expr.go and outputs.go). Writes it cannot build tasks on are listed in
// Skipped, not fatal.
//
// The agent uses only the schema-level parts. The generator also reads
// the indexes NewModel builds over the base database (index.go: whose
// records a list shows, which users own how many, values per field) and
// calls read tools through the model's read cache (Model.Read).
//
// How things are said lives here too, because the customer, the agent
// and the generator must name them alike: identifiers as words, labels
// of records and searches, values as a person says them (lang.go), the
// values a customer may state for a parameter known only by its schema
// (words.go), and the intent strings that name a goal (intent.go).
package model
