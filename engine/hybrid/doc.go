// Package hybrid is the hybrid engine, after ToolACE-MT's mask-and-fill:
// the embedded engine plays a verified skeleton, then an LLM rewrites
// every customer and agent line in the persona's (or the agent's) voice,
// keeping every entity of the line; tool calls and results are never
// touched. The refined dialogue is verified again, and the skeleton goes
// out instead when it fails. It makes no DPO pairs. Kind describes the
// engine to a run; it reads the same config keys as the llm engine
// (llm.DecodeOptions).
package hybrid
