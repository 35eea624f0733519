package emulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// created is the fixed creation time of every response (tau2's clock,
// 2024-05-15 15:00 EST): a cached release must not change with the hour
// it was made.
const created = 1715803200

// chatRequest is the part of a chat completion request the emulator
// reads. Tool parameters stay raw: only their size matters here.
type chatRequest struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages"`
	Tools    []toolDef `json:"tools"`
	User     string    `json:"user"`
	Seed     *int64    `json:"seed"`
	Stream   bool      `json:"stream"`

	// The fields some flavor reads, refuses or ignores (flavor.go).
	MaxTokens           *int64                     `json:"max_tokens"`
	MaxCompletionTokens *int64                     `json:"max_completion_tokens"`
	NPredict            *int64                     `json:"n_predict"`
	Temperature         json.RawMessage            `json:"temperature"`
	ReasoningEffort     json.RawMessage            `json:"reasoning_effort"`
	ToolChoice          json.RawMessage            `json:"tool_choice"`
	ParallelToolCalls   *bool                      `json:"parallel_tool_calls"`
	ResponseFormat      json.RawMessage            `json:"response_format"`
	ChatTemplateKwargs  map[string]json.RawMessage `json:"chat_template_kwargs"`

	// keys are the body's top-level keys, sorted, for the flavors that
	// refuse fields they do not know.
	keys []string
}

// seed is the request's seed as text ("" when it has none), for the
// draws that vary with it.
func (r *chatRequest) seed() string {
	if r.Seed == nil {
		return ""
	}
	return strconv.FormatInt(*r.Seed, 10)
}

// message is one request message. Content is a string or, in the newer
// shape, an array of parts whose text parts are joined. RawContent is
// empty when the message has no content key and "null" when it is null:
// servers tell the two apart.
type message struct {
	Role       string            `json:"role"`
	RawContent json.RawMessage   `json:"content"`
	ToolCalls  []openai.ToolCall `json:"tool_calls"`
	ToolCallID string            `json:"tool_call_id"`
	Content    string            `json:"-"`
	// An earlier turn's reasoning sent back, in the field a client chose;
	// each flavor reads one of them (Flavor.readReasoning) into Thought.
	Reasoning        string `json:"reasoning"`
	ReasoningContent string `json:"reasoning_content"`
	Thought          string `json:"-"`
}

// text decodes RawContent into Content.
func (m *message) text() error {
	raw := bytes.TrimSpace(m.RawContent)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return nil
	case raw[0] == '"':
		return json.Unmarshal(raw, &m.Content)
	case raw[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return err
		}
		var texts []string
		for _, p := range parts {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		m.Content = strings.Join(texts, "\n")
		return nil
	}
	return fmt.Errorf("content must be a string or an array of parts")
}

type toolDef struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// badRequest is an error the client caused; it becomes a 400.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func badf(format string, args ...any) error { return &badRequest{fmt.Sprintf(format, args...)} }

// parseRequest decodes and checks a request body; withKeys also lists
// its top-level keys.
func parseRequest(body []byte, withKeys bool) (*chatRequest, error) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, badf("request body is not a valid chat completion request: %v", err)
	}
	if withKeys {
		keys, err := topLevelKeys(body)
		if err != nil {
			return nil, badf("request body is not a valid chat completion request: %v", err)
		}
		req.keys = keys
	}
	if req.Stream {
		return nil, badf("stream: true is not supported; synth emulate answers non-streaming requests only (send stream: false)")
	}
	if len(req.Messages) == 0 {
		return nil, badf("messages: at least one message is required")
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool":
		default:
			return nil, badf("messages[%d].role %q: want system, user, assistant or tool", i, m.Role)
		}
		if err := m.text(); err != nil {
			return nil, badf("messages[%d].content: %v", i, err)
		}
	}
	for i, t := range req.Tools {
		if t.Function.Name == "" {
			return nil, badf("tools[%d].function.name: required", i)
		}
	}
	return &req, nil
}

// system returns the request's system prompt ("" without one).
func (r *chatRequest) system() string {
	for _, m := range r.Messages {
		if m.Role == "system" || m.Role == "developer" {
			return m.Content
		}
	}
	return ""
}

// userText joins the contents of the user messages.
func (r *chatRequest) userText() string {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role == "user" {
			b.WriteString(m.Content)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (r *chatRequest) hasTool(name string) bool {
	return slices.ContainsFunc(r.Tools, func(t toolDef) bool { return t.Function.Name == name })
}

// reply is what a role says: text, tool calls or both.
type reply struct {
	Content          string
	ReasoningContent string
	ToolCalls        []openai.ToolCall
}

// The response in the wire format, written with our own types so that
// content is null beside tool calls as OpenAI sends it.
type wireResponse struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	Choices           []wireChoice `json:"choices"`
	Usage             wireUsage    `json:"usage"`
	SystemFingerprint string       `json:"system_fingerprint"`
}

type wireChoice struct {
	Index        int         `json:"index"`
	Message      wireMessage `json:"message"`
	Logprobs     *struct{}   `json:"logprobs"`
	FinishReason string      `json:"finish_reason"`
}

type wireMessage struct {
	Role             string            `json:"role"`
	Content          *string           `json:"content"`
	ReasoningContent string            `json:"reasoning_content,omitempty"`
	ToolCalls        []openai.ToolCall `json:"tool_calls,omitempty"`
	Refusal          *string           `json:"refusal"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// tokens estimates a token count the way a byte-pair tokenizer roughly
// would for English: a token per four characters.
func tokens(n int) int { return (n + 3) / 4 }

// promptChars counts what a model would read: message contents, tool
// calls and the tool schemas.
func promptChars(r *chatRequest) int {
	n := 0
	for _, m := range r.Messages {
		// The reasoning the server read is in the prompt its template
		// renders; the reasoning it dropped is not.
		n += utf8.RuneCountInString(m.Content) + utf8.RuneCountInString(m.Thought) + len(m.Role)
		for _, c := range m.ToolCalls {
			n += len(c.Function.Name) + utf8.RuneCountInString(c.Function.Arguments)
		}
	}
	for _, t := range r.Tools {
		n += len(t.Function.Name) + utf8.RuneCountInString(t.Function.Description) + len(t.Function.Parameters)
	}
	return n
}

func replyChars(rp reply) int {
	n := utf8.RuneCountInString(rp.Content) + utf8.RuneCountInString(rp.ReasoningContent)
	for _, c := range rp.ToolCalls {
		n += len(c.Function.Name) + utf8.RuneCountInString(c.Function.Arguments)
	}
	return n
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// readBody reads a request body up to maxBody bytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, badf("request body over %d bytes", maxBody)
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// truncate cuts a body in the middle, as a dropped connection would.
func truncate(body []byte) []byte { return body[:len(body)/2] }

// malform breaks a body's JSON syntax: the first comma doubled.
func malform(body []byte) []byte {
	i := bytes.IndexByte(body, ',')
	if i < 0 {
		return append([]byte("{"), body...)
	}
	out := make([]byte, 0, len(body)+1)
	out = append(out, body[:i+1]...)
	return append(append(out, ','), body[i+1:]...)
}
