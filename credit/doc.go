// Package credit labels a dialogue turn by turn against its blueprint's
// ground truth: the credit signals a multi-turn trainer needs and that
// synth knows by construction.
//
// Label reads one trajectory (finished or not) with its blueprint and,
// when there is one, its verdict, and says for every assistant message
// its action class (a read, write or transfer call; an ask, confirm,
// inform, refuse or transfer in words, read by the customer's own
// classifier, usersim.ReadAsk), whether it is a step of the ground-truth
// chain and which write it serves, how many chain steps are done after it
// (the dense progress reward), and for every write call where each
// argument value first appeared (a tool result's JSON path or a customer
// turn). Over the dialogue it names the pivotal mistake of a failed one,
// the correcting turn of a recovery, the chain's length, the share of it
// the labels cover (V_d) and the verdict's outcome.
//
// The JSON tags of Labels are a file format: releases hold them in the
// sft rows' labels column and in rejected/, and synth validate
// recomputes them. Label takes its tool kinds from the ground truth and
// reads words by the retail rules; LabelDomain, given the domain, also
// classes a call to a tool the ground truth does not use (a wrong write)
// and reads what the domain's agents ask for in its own words, as its
// customer does: synth run, validate, serve and the llm engine's
// rejected records all label through it.
package credit
