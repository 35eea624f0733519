// Package intake reads dialogues made outside synth — by another
// generator, an agent's logs, τ²-bench or τ-bench runs — and turns each
// into the trajectory and ground truth synth's verifier judges.
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
// writes.
package intake
