// Package engine is the contract between the run and whatever plays a
// dialogue: Engine, one method taking a blueprint and the tools its agent
// is given and returning an Outcome (the dialogue kept, its verdict, the
// failed attempts before it, the DPO pairs as rows the file format
// takes, the LLM usage). The engines are its subpackages, embedded, llm
// and hybrid; the pipeline builds one and composes the rest without
// knowing which.
//
// It holds only what a caller and every engine must agree on: the
// Outcome and its parts (Attempt, Pairs, PairRow, DPOStats), which tools
// a row carries and the agent is given (ToolChoice, RowTools,
// CheckRowTools), and the LLM usage counts (LLMStats, Meter, Billing).
// How an engine plugs into a run is its Kind: its name, whether it
// needs a model, its part of the dataset card, its config keys (Option)
// with their check and defaults, and a constructor given a Setup; the
// run holds a list of Kinds and knows engines by nothing else. How pairs
// are planned, cut and labelled is package dpo. Capabilities
// some engines have are named interfaces a caller asks for: Budgeted
// (stop starting blueprints once a budget is spent), Metered (what was
// billed, for progress) and Waiting (dialogues that mostly wait on the
// network want more in flight than there are CPUs).
package engine
