// Package dpo makes the preference pairs of a run the same way whichever
// engine plays the dialogues, so a pair or a label means the same
// whatever made it.
//
// Plan chooses which flaw of the agent (agent.Flaws, narrowed to what a
// domain can show by FlawsFor) to try for a blueprint, deterministic per
// index, and how pairs are cut: MakePair and Plan.Cut end every side
// before the next customer turn, and a mistake acted on only after the
// customer's answer must show in the proposal's words. A pair counts
// only when its rejected side failed for the right reason: Expected
// names the checks each flaw's dialogue must fail, FailureLabel maps a
// failed LLM dialogue to that same taxonomy, and LabelChecker decides
// whether the rows a model trains on show the labelled mistake at all.
//
// The engines call it to make their pairs; synth validate calls it to
// re-check a release's. The pairs themselves travel as engine.Pairs.
package dpo
