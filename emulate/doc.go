// Package emulate is an OpenAI-compatible server that plays synth's roles
// for tests, dry runs and load tests, answering with the wire behaviour of
// vLLM, SGLang, llama.cpp, Ollama or OpenAI when given a Flavor.
//
// A Server (New, then Handler or Serve) tells synth's requests apart by
// their shape: the agent's carry tools, and the customer's, writer's,
// judge's and refiner's system prompts open with the llm package's
// protocol headers. A customer request carries its scenario, the blueprint
// as the customer knows it; the emulator replays the embedded engine's
// dialogue for that session once and answers both sides from the replay,
// so a competent agent and a faithful customer behave exactly as synth's
// embedded engine does. An agent request for a session no customer introduced
// (--user embedded, or an emulator restarted) is played from the
// blueprint Options.Tasks rebuilds from its id; without one it answers as
// a weak agent that apologises and transfers, a realistic failure rather
// than a server error. The writer gets an instruction that states every
// goal entity, the judges a vote on it, the refiner a rewrite of its line
// that keeps every entity verbatim.
//
// The bad days are deliberate and reproducible. MistakeRate plays a role
// badly (a flawed agent, an instruction missing an entity, a harsh judge,
// a rewrite that drops an entity), drawn from the session's content, so
// the same run meets the same mistakes. ErrorRate injects faults (429s,
// 500s, late answers, cut or non-JSON bodies, calls to unknown tools)
// drawn per request in arrival order, so a retry can succeed. Latency and
// MaxConcurrency make it queue and wait like a real scheduler, and
// /metrics reports what it served. A Flavor reproduces one server's wire
// format: where reasoning comes back, which field it reads an earlier
// turn's reasoning from on input (the other it drops, as the server
// does, and /metrics counts both), which fields it refuses, how it
// reports a tool call its parser could not read, its error bodies, finish
// reasons and usage; each rule names the source it was read from
// (flavor.go, render.go).
//
// Sessions and loaded domains live in bounded caches, request bodies are
// capped, and connections carry internal/httpbound's read and idle
// timeouts, so a long load test holds flat memory. The emulator is no
// model: it knows only synth's protocol and domains, and is not meant to
// answer anyone else's prompts well.
package emulate
