package llm

import (
	"context"
	"errors"

	openai "github.com/sashabaranov/go-openai"
)

// Role is who a request speaks for; each role has its own model and
// sampling settings.
type Role string

// Roles.
const (
	Agent  Role = "agent"  // the customer-service agent being simulated
	User   Role = "user"   // the simulated customer
	Judge  Role = "judge"  // reviews instructions (committee votes)
	Writer Role = "writer" // writes instructions and rewrites utterances
)

// Stages a request is accounted under.
const (
	StageSimulate = "simulate" // agent and user turns of a dialogue
	StageRefine   = "refine"   // hybrid engine rewrites of utterances
	StageInstruct = "instruct" // instruction writing
	StageReview   = "review"   // judge votes
)

// Chatter sends one chat completion on behalf of a role. Implementations
// fill in the role's model and sampling settings, retry, limit, cache and
// account; callers set messages, tools and anything request-specific.
type Chatter interface {
	Chat(ctx context.Context, role Role, stage string, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error)
}

// ErrBudget is returned once a --max-cost or --max-tokens budget is spent;
// callers finish the work in flight and stop taking new work.
var ErrBudget = errors.New("LLM budget spent (--max-cost / --max-tokens)")
