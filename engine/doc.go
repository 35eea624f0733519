// Package engine is the contract between the run and whatever plays a
// dialogue: Engine, one method taking a blueprint and the tools its agent
// is given and returning an Outcome (the dialogue kept, its verdict, the
// failed attempts before it, the DPO pairs, the LLM usage). The engines
// are its subpackages, embedded, llm and hybrid; the pipeline builds one
// and composes the rest without knowing which.
//
// What every engine shares lives here, so a pair or a label means the
// same whichever engine made it: the DPO Plan (which flaw to try for a
// blueprint, deterministic per index, and how pairs are cut, MakePair and
// Plan.Cut: every side ends before the next customer turn, and a mistake
// made only after the customer's answer is paired on the decision, with
// the dialogues followed as its Evidence),
// the failure taxonomy of failed LLM dialogues (FailureLabel, each label
// naming the checks its dialogue must fail, Expected), which tools a row
// carries and the agent is given (ToolChoice, RowTools, CheckRowTools),
// and the LLM usage counts (LLMStats, Meter). Capabilities some engines
// have are named interfaces a caller asks for: Budgeted (stop starting
// blueprints once a budget is spent), Metered (what was billed, for
// progress) and Waiting (dialogues that mostly wait on the network want
// more in flight than there are CPUs).
package engine
