package export

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExportFormats checks each format against its documented shape:
// OpenAI fine-tuning (messages/tools/parallel_tool_calls; preference
// input/preferred_output/non_preferred_output), LLaMA-Factory ShareGPT
// (alternating human|observation and gpt|function_call turns, ranking
// chosen/rejected as single turns, dataset_info.json) and synth's jsonl.
func TestExportFormats(t *testing.T) {
	rel := t.TempDir()
	writeSFT(t, rel, Options{}, map[string][]SFTRow{"train": {sampleSFT(1), sampleSFT(2)}, "test": {sampleSFT(3)}})
	w, err := NewWriter(rel, "dpo", DPOSchema(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A pair whose sides hold tool results, and one cut at its first
	// tool call (synth run --dpo-tools cut), which OpenAI can take.
	cut := sampleDPO(2)
	cut.Chosen, cut.Rejected = cut.Chosen[:1], cut.Rejected[:1]
	cut.Chosen[0].ReasoningContent = "The user confirmed; cancel the order."
	for _, r := range []DPORow{sampleDPO(1), cut} {
		if err := w.WriteDPO("train", r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := func(t *testing.T, path string) []map[string]any {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out = append(out, m)
		}
		return out
	}
	for _, tt := range []struct {
		format Format
		check  func(t *testing.T, sft, dpo []map[string]any, out string)
	}{
		{FormatOpenAI, func(t *testing.T, sft, dpo []map[string]any, _ string) {
			r := sft[0]
			msgs := r["messages"].([]any)
			if r["parallel_tool_calls"] != true {
				t.Error("a row with a parallel call must set parallel_tool_calls")
			}
			for _, m := range msgs {
				m := m.(map[string]any)
				if _, ok := m["reasoning_content"]; ok {
					t.Error("reasoning_content is not an OpenAI fine-tuning field")
				}
				if m["role"] == "tool" && (m["tool_call_id"] == nil || m["name"] != nil) {
					t.Errorf("tool message %v: want tool_call_id and no name", m)
				}
				for _, c := range asList(m["tool_calls"]) {
					if _, ok := c.(map[string]any)["function"].(map[string]any)["arguments"].(string); !ok {
						t.Error("OpenAI arguments must be JSON text")
					}
				}
			}
			if len(r["tools"].([]any)) != 2 {
				t.Error("tools must be the array of tool objects")
			}
			// The pair with tool results is left out: preferred_output and
			// non_preferred_output take assistant messages only.
			if len(dpo) != 1 {
				t.Fatalf("%d preference rows, want the cut pair only", len(dpo))
			}
			in := dpo[0]["input"].(map[string]any)
			if in["messages"] == nil || dpo[0]["preferred_output"] == nil || dpo[0]["non_preferred_output"] == nil {
				t.Errorf("preference row shape: %v", dpo[0])
			}
			for _, side := range []string{"preferred_output", "non_preferred_output"} {
				for _, m := range dpo[0][side].([]any) {
					m := m.(map[string]any)
					if m["role"] != "assistant" || m["weight"] != nil || m["reasoning_content"] != nil {
						t.Errorf("%s message %v: want an assistant message without weight or reasoning", side, m)
					}
				}
			}
		}},
		{FormatShareGPT, func(t *testing.T, sft, dpo []map[string]any, out string) {
			r := sft[0]
			if r["system"] == "" || r["tools"] == nil {
				t.Error("system and tools fields")
			}
			if _, ok := r["tools"].(string); !ok {
				t.Error("ShareGPT tools is a JSON string")
			}
			turns := r["conversations"].([]any)
			for i, tr := range turns {
				from := tr.(map[string]any)["from"].(string)
				even := from == "human" || from == "observation"
				if even != (i%2 == 0) {
					t.Errorf("turn %d is %s: human/observation and gpt/function_call must alternate", i, from)
				}
				value := tr.(map[string]any)["value"].(string)
				if from == "function_call" {
					// LLaMA-Factory's FunctionFormatter takes the thought
					// off before it reads the call.
					call := thoughtWords.ReplaceAllString(value, "")
					var v any
					if err := json.Unmarshal([]byte(call), &v); err != nil {
						t.Errorf("function_call value is not JSON after its thought: %v", err)
					}
					if i == 1 && !strings.HasPrefix(value, "<think>\nThe user wants a cancellation") {
						t.Errorf("the first call's reasoning is not its thought: %q", value)
					}
				}
			}
			if last := turns[len(turns)-1].(map[string]any)["from"]; last == "human" {
				t.Error("a conversation ends with the model's turn")
			}
			if _, ok := dpo[0]["chosen"].(map[string]any); !ok {
				t.Error("ranking chosen is one turn")
			}
			if v := dpo[1]["chosen"].(map[string]any)["value"].(string); !strings.HasPrefix(v, "<think>\nThe user confirmed; cancel the order.\n</think>\n\n{") {
				t.Errorf("the chosen turn's reasoning is not its thought: %q", v)
			}
			b, err := os.ReadFile(filepath.Join(out, "dataset_info.json"))
			if err != nil || !strings.Contains(string(b), `"ranking": true`) {
				t.Errorf("dataset_info.json: %v %s", err, b)
			}
		}},
		{FormatJSONL, func(t *testing.T, sft, dpo []map[string]any, _ string) {
			for _, k := range []string{"id", "blueprint_id", "domain", "messages", "tools", "n_writes", "n_reads", "evidence", "behavior", "engine"} {
				if _, ok := sft[0][k]; !ok {
					t.Errorf("jsonl sft row lacks %s", k)
				}
			}
			for _, k := range []string{"prompt", "chosen", "rejected", "failure", "divergence_turn"} {
				if _, ok := dpo[0][k]; !ok {
					t.Errorf("jsonl dpo row lacks %s", k)
				}
			}
		}},
	} {
		t.Run(string(tt.format), func(t *testing.T) {
			out := t.TempDir()
			files, err := ExportRelease(context.Background(), rel, tt.format, out, ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != 3 {
				t.Fatalf("files %+v, want sft train, sft test, dpo train", files)
			}
			if want := map[Format]int{FormatOpenAI: 1}[tt.format]; files[2].LeftOut != want {
				t.Errorf("%d preference pairs left out, want %d", files[2].LeftOut, want)
			}
			tt.check(t, lines(t, filepath.Join(out, "sft", "train.jsonl")), lines(t, filepath.Join(out, "dpo", "train.jsonl")), out)
		})
	}
	if _, err := ExportRelease(context.Background(), rel, FormatJSONL, filepath.Join(rel, "x"), ExportOptions{}); err == nil {
		t.Error("exporting into the release must be refused")
	}
	if _, err := ParseFormat("csv"); err == nil {
		t.Error("an unknown format must be refused")
	}
}

func asList(v any) []any { l, _ := v.([]any); return l }

// thoughtWords is LLaMA-Factory's regex for a turn's thought
// (formatter.py, FunctionFormatter.apply) with its default thought_words.
var thoughtWords = regexp.MustCompile(`(?s)<think>\n(.*?)\n</think>\n\n`)

// TestExportReasoning counts, per format, the assistant messages whose
// reasoning an export keeps, and checks --drop-reasoning drops it all.
func TestExportReasoning(t *testing.T) {
	rel := t.TempDir()
	writeSFT(t, rel, Options{}, map[string][]SFTRow{"train": {sampleSFT(1), sampleSFT(2)}})
	for _, tc := range []struct {
		format Format
		drop   bool
		kept   int
		marker string // how the kept reasoning is written
	}{
		{FormatShareGPT, false, 2, `<think>\n`},
		{FormatJSONL, false, 2, `"reasoning_content"`},
		{FormatOpenAI, false, 0, ""},
		{FormatShareGPT, true, 0, ""},
		{FormatJSONL, true, 0, ""},
	} {
		out := t.TempDir()
		files, err := ExportRelease(context.Background(), rel, tc.format, out, ExportOptions{DropReasoning: tc.drop})
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files[0].Reasoning != 2 || files[0].ReasoningKept != tc.kept {
			t.Errorf("%s drop=%v: %+v, want 2 messages with reasoning, %d kept", tc.format, tc.drop, files, tc.kept)
		}
		b, err := os.ReadFile(filepath.Join(out, "sft", "train.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{`<think>`, `reasoning_content`, "look up both candidate orders"} {
			if has := strings.Contains(string(b), m); has && tc.kept == 0 {
				t.Errorf("%s drop=%v: the file still holds %q", tc.format, tc.drop, m)
			}
		}
		if tc.kept > 0 && strings.Count(string(b), tc.marker) != tc.kept {
			t.Errorf("%s: %d of %q in the file, want %d", tc.format, strings.Count(string(b), tc.marker), tc.marker, tc.kept)
		}
	}
}

// TestExportKeepsWeight: the weight 0 of a recovery's mistake turn
// survives the Parquet round trip and both exports a trainer reads
// weights from (openai, jsonl); no other message gains one.
func TestExportKeepsWeight(t *testing.T) {
	rel := t.TempDir()
	r := sampleSFT(1)
	r.Kind = "recovery"
	mistake := -1
	for i := range r.Messages {
		if r.Messages[i].Role == "assistant" {
			mistake = i
			r.Messages[i].Weight = new(int)
			break
		}
	}
	if mistake < 0 {
		t.Fatal("the sample row has no assistant message")
	}
	writeSFT(t, rel, Options{}, map[string][]SFTRow{"train": {r}})
	for _, f := range []Format{FormatOpenAI, FormatJSONL} {
		out := filepath.Join(t.TempDir(), string(f))
		if _, err := ExportRelease(context.Background(), rel, f, out, ExportOptions{}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, "sft", "train.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var row struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := json.Unmarshal(b, &row); err != nil {
			t.Fatal(err)
		}
		for i, m := range row.Messages {
			w, ok := m["weight"]
			if i == mistake && (!ok || w != float64(0)) {
				t.Errorf("%s: message %d (the mistake) has weight %v, want 0", f, i, w)
			}
			if i != mistake && ok {
				t.Errorf("%s: message %d has weight %v, want none", f, i, w)
			}
		}
	}
}
