package llm

import (
	"cmp"
	"encoding/json"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// normalizeReasoning puts each choice's reasoning in ReasoningContent,
// wherever the server returned it: "reasoning" (vLLM, which dropped
// "reasoning_content" in January 2026, and Ollama's OpenAI layer,
// openai/openai.go Message.Reasoning), "reasoning_content" (SGLang,
// DeepSeek, older vLLM, llama.cpp, whose --reasoning-format defaults to
// auto), or <think>…</think> left in the content by a server running
// without a reasoning parser (then also stripped from the content).
// OpenAI's reasoning models return none, only its token count. raw is
// the response body go-openai decoded resp from; its struct has no
// "reasoning" field.
func normalizeReasoning(resp *openai.ChatCompletionResponse, raw []byte) {
	var extra struct {
		Choices []struct {
			Message struct {
				Reasoning *string `json:"reasoning"`
			} `json:"message"`
		} `json:"choices"`
	}
	if len(raw) > 0 && json.Unmarshal(raw, &extra) != nil {
		extra.Choices = nil
	}
	for i := range resp.Choices {
		m := &resp.Choices[i].Message
		if m.ReasoningContent == "" && i < len(extra.Choices) && extra.Choices[i].Message.Reasoning != nil {
			m.ReasoningContent = *extra.Choices[i].Message.Reasoning
		}
		thought, content, ok := splitThink(m.Content)
		if ok {
			m.ReasoningContent = cmp.Or(m.ReasoningContent, thought)
			m.Content = content
		}
		m.ReasoningContent = strings.TrimSpace(m.ReasoningContent)
	}
}

// splitThink separates a leading <think>…</think> block from content. A
// content with only the closing tag (the opening one was in the prompt, as
// Qwen3's template puts it) splits at that tag.
func splitThink(content string) (thought, rest string, ok bool) {
	end := strings.Index(content, "</think>")
	if end < 0 {
		return "", content, false
	}
	head := content[:end]
	if start := strings.Index(head, "<think>"); start >= 0 {
		if strings.TrimSpace(head[:start]) != "" {
			// Text before the block: not a reasoning preamble.
			return "", content, false
		}
		head = head[start+len("<think>"):]
	}
	return strings.TrimSpace(head), strings.TrimLeft(content[end+len("</think>"):], "\n\r\t "), true
}
