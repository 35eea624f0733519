// Package intake reads dialogues made outside synth — by another
// generator, an agent's logs, τ²-bench or τ-bench runs — and turns each
// into the trajectory and ground truth synth's verifier judges. It is the
// reading half of synth verify; verify judges and pipeline's Keeper keeps.
//
// Read detects a file's layout and streams its dialogues one at a time:
// synth's JSONL (one {"id", "messages", "ground_truth" | "task_id"} a
// line), τ²-bench's results files ({"tasks", "simulations"}, their own
// message layout) and τ-bench's historical trajectory files ([{"task_id",
// "info": {"task"}, "traj"}]). A line or entry that cannot be read comes
// as a Dialogue with Err set and its position, so one bad line never
// stops the rest. Convert then makes the synth records: messages in
// OpenAI's layout with synth's call ids (each source id mapped to one),
// the stop tokens of the user turned into the ending, the domain's
// policy as the system message where the dialogue has none, and the
// ground truth as a blueprint whose state hash is the replay of its
// writes. A dialogue that names only a task_id gets its ground truth from
// ReadTasks, τ²'s tasks.json.
//
// Run does synth verify's reading and judging: every file read, every
// dialogue converted and judged by the Verifier (verify.Verifier's
// Outside, which replays the recorded tool results first), on Workers
// goroutines, with each Outcome emitted in file order so the output is the
// same whatever the parallelism. With Job.Release, each passing dialogue
// is also put in a release's form by ForRelease — the domain's policy as
// system message, tool results as the replay gives their text, gold writes
// that change nothing dropped, the train split — and verified as a
// release's rows are, so a kept release passes synth validate like a
// generated one.
//
// Inputs are untrusted: a file must be a regular file, a JSONL line is
// bounded by MaxLine, τ² and τ-bench files are decoded one entry at a
// time and a tasks file within a fixed size, so memory stays at a few
// dialogues per worker. Intake never judges a dialogue itself and writes
// nothing; it imports neither verify nor pipeline, needing of the one only
// the Verifier interface, and cmd/synth hands its Outcomes to the Keeper.
package intake
