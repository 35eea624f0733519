// Package mcp is synth's side of the Model Context Protocol, both ways:
// it serves synth's environments to MCP clients (synth mcp on stdio,
// synth serve at /mcp over streamable HTTP), so an agent framework
// plays a domain's episodes as it plays any tool server; and it reads
// MCP servers' tool lists for synth domain import-mcp, which
// openapi.ImportTools turns into a pack.
//
// A Server is one client's: it holds one episode at a time, a session
// of a serve.Server (opened, stepped, scored and reaped exactly as
// synth serve's HTTP sessions are, and reachable by their id there
// too). tools/list gives the episode's tools as the release's rows carry
// them (name, description, parameters as the input schema; reads and
// generic tools marked readOnlyHint). Every tools/call, an unknown
// tool's included, goes to the episode as one assistant message with
// one tool call, so its result is the tool message synth's dialogue
// gets for that call on that state, "Error: …" results marked isError:
// a bad call is a tool result, never a protocol error. What only the
// harness may do is kept out of the tool list, where a policy could
// call it: the prompt "reset" starts a fresh episode (the same task, or
// the index, seed or blueprint_id it names) and returns the customer's
// first message, the prompt "say" hands the agent's words to the
// customer and returns the answer, and the resource synth://episode is
// the dialogue with its step labels, rewards and, once it has ended,
// the verifier's verdict and outcome reward. The server's instructions
// are the domain policy, the system message of synth's rows.
//
// Handler serves streamable HTTP: an initialize request opens an MCP
// session and its Server, on the episode its URL's query names
// (?domain=D&seed=S&index=I or ?release=DIR&blueprint_id=ID); the
// episode ends with the session. Only protocol revisions with sessions
// are offered: the sessionless 2026-07-28 one has nowhere to keep an
// episode between calls.
//
// ReadTools reads a saved tools/list result, ListTools asks a server
// started as a command over stdio (the SDK's CommandTransport, no
// shell; SplitCommand splits the command line), both bounded in bytes,
// tools, pages and time, and both checked the same way: every tool
// named, once, with an object as its input schema.
package mcp
