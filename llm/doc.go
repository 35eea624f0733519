// Package llm talks to OpenAI-compatible endpoints for synth's roles:
// per-role settings, retries, adaptive concurrency, a response cache,
// token accounting and budgets.
//
// Every request goes through a Chatter: Chat(ctx, role, stage, request).
// Callers build only the conversation (messages, tools, the per-request
// seed); Client fills in the role's model and sampling settings from
// Config, waits for the RPM and TPM buckets and for an AIMD concurrency
// limit that halves on bursts of 429s and creeps back up, retries what a
// retry can fix with jittered backoff (honouring Retry-After), and turns
// what it cannot into an Error naming the fault. The server quirks it
// adapts to (tools refused without a parser, unknown fields refused,
// max_completion_tokens, reasoning in content or beside it, the field an
// earlier turn's reasoning goes back in, chosen by Config.Server) are listed in
// servers.go and reproduced by the emulate package, which the tests run
// against.
//
// The cache is what makes LLM runs reproducible: a response is stored on
// disk under the hash of the base URL and the final wire body, the first
// response published for a key wins, and so a rerun of the same requests
// gets the same responses without sending one. Accounting keeps two views
// for that reason (Usage): Used counts every response received, from the
// network or the cache, and belongs in a release; Billed is what this
// process sent and paid for, and feeds logs and the --max-cost and
// --max-tokens budgets. Once a budget is spent Chat fails with ErrBudget,
// except for work marked Admitted, so dialogues in flight finish.
//
// protocol.go holds the fixed prompt templates of the customer, writer,
// judge and refiner roles; their first lines (UserHeader and the others)
// name the role so the emulator and a person reading logs can tell the
// requests apart, and the customer is shown the blueprint's Scenario,
// never its ground truth. Config holds no secret: the key is read from the
// environment variable it names, and the redactor strips the key and its
// encodings from anything synth prints, logs, caches or stores, matched by
// their letters and digits so that a key echoed with spaces or punctuation
// put in is caught too. A request's retries, and the waits a server asks
// for (Retry-After), fit in its budget of llm.timeout per attempt. A Client
// is safe for concurrent use; the package decides nothing about dialogues,
// which are pipeline's.
package llm
