package llm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// cannedTransport answers every request in process with one response, so
// a benchmark measures the client alone.
type cannedTransport struct{ body []byte }

func (c cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(c.body)),
		ContentLength: int64(len(c.body)),
		Request:       req,
	}, nil
}

// agentRequest is the size of a mid-dialogue agent turn: a policy, a
// dozen messages with tool traffic, and 16 tools.
func agentRequest() openai.ChatCompletionRequest {
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: strings.Repeat("Policy: authenticate the user first, confirm every write. ", 60)}}
	for i := range 6 {
		msgs = append(msgs,
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: fmt.Sprintf("I want to return item %d of order #W%07d, it arrived broken.", i, i)},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{
				ID: fmt.Sprintf("call%05d", i), Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: "get_order_details", Arguments: fmt.Sprintf(`{"order_id":"#W%07d"}`, i)},
			}}},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: fmt.Sprintf("call%05d", i), Name: "get_order_details",
				Content: `{"order_id":"#W0000001","status":"delivered","items":[{"item_id":"4983901480","price":262.47,"product":"Backpack"}]}`},
		)
	}
	var tools []openai.Tool
	for i := range 16 {
		tools = append(tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: fmt.Sprintf("tool_%d", i), Description: "Look up or change something in the store's database.",
			Parameters: []byte(`{"type":"object","properties":{"order_id":{"type":"string","description":"The order id, such as #W0000000."},"item_ids":{"type":"array","items":{"type":"string"}}},"required":["order_id"]}`),
		}})
	}
	return openai.ChatCompletionRequest{Messages: msgs, Tools: tools, User: SessionID("retail-0000000000000001-0000001", 0)}
}

// BenchmarkOverhead measures synth's own cost per LLM call: building the
// request, limits, accounting and decoding, with the network replaced by
// an in-process answer. p50-ns/call is the median call.
func BenchmarkOverhead(b *testing.B) {
	canned := completion("Sure, let me look that order up for you.", 1800, 40)
	cases := []struct {
		name  string
		cache bool
	}{{"sent", false}, {"cache-hit", true}}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			cfg := Config{BaseURL: "http://in-process/v1", APIKeyEnv: NoKey, Model: "m", Cache: CacheOff,
				Prices: map[string]Price{"m": {Input: 1, Output: 2}}, MaxCost: 1e9}
			if tc.cache {
				cfg.Cache = b.TempDir()
			}
			c, err := New(cfg, WithTransport(cannedTransport{body: canned}))
			if err != nil {
				b.Fatal(err)
			}
			req := agentRequest()
			ctx := context.Background()
			if _, err := c.Chat(ctx, Agent, StageSimulate, req); err != nil {
				b.Fatal(err)
			}
			var times []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				if _, err := c.Chat(ctx, Agent, StageSimulate, req); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t0))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns/call")
			b.ReportMetric(float64(c.Stats().Overhead.Nanoseconds()), "overhead-ns/call")
		})
	}
}
