// Package record defines the data that flows between synth's stages:
// blueprints, messages, trajectories and verdicts.
//
// A Blueprint is a task as the generator made it: the Persona and what the
// customer knows, the Goals with Selectors that name their targets the way
// a person would, and the executed ground truth — Actions with the reads
// each write Needs, the Outputs the agent must say, the StateHash of the
// writes replayed. A Trajectory is one dialogue of it as Messages in the
// OpenAI chat shape that TRL chat templates read, with its Ending and the
// state it left. A Verdict is the list of Checks the verifier ran on
// the pair. Blueprints go to the simulators and into a release's
// blueprints files; trajectories into its sft and dpo rows (through
// export) and, with their verdict, into rejected; intake makes both out of
// dialogues made elsewhere, so everything downstream treats outside and
// own dialogues alike.
//
// The JSON tags are a file format, not an implementation detail: they are
// what releases hold on disk, what schemas/ describes and checks, and what
// synth validate reads back, so renaming one changes the format of every
// release. Tool-call arguments stay JSON text, as the OpenAI API sends
// them, because Arrow cannot store empty structs and templates disagree on
// dict or string.
//
// The package is types and constants only (Verdict.Failed aside) and
// imports nothing of synth's, so every stage can depend on it without
// depending on another stage.
package record
