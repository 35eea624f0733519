package export

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/synth-data/synth/internal/realpath"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// Format is an output format of `synth export`, for trainers that do not
// read the Hugging Face layout.
type Format string

// Formats.
const (
	// FormatOpenAI is OpenAI's fine-tuning JSONL: {"messages", "tools",
	// "parallel_tool_calls"} per SFT row, arguments as JSON text as the
	// API sends them; DPO rows in its preference shape {"input": {...},
	// "preferred_output", "non_preferred_output"}.
	FormatOpenAI Format = "openai"
	// FormatShareGPT is the ShareGPT layout LLaMA-Factory and Axolotl
	// read: "conversations" of {"from", "value"} turns (human, gpt,
	// function_call, observation), "system" and "tools" as JSON text;
	// DPO rows add "chosen" and "rejected" turns. dataset_info.json
	// registers every file with LLaMA-Factory.
	FormatShareGPT Format = "sharegpt"
	// FormatJSONL is synth's rows as JSON lines: every column, messages in
	// the OpenAI Chat Completions wire shape (arguments as JSON text, as a
	// server returns them), tools as the array of tool objects.
	FormatJSONL Format = "jsonl"
)

// Formats lists the formats, in a fixed order.
func Formats() []Format { return []Format{FormatOpenAI, FormatShareGPT, FormatJSONL} }

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("--format %q: want one of openai, sharegpt, jsonl", s)
}

// ExportedFile is one file `synth export` wrote.
type ExportedFile struct {
	Path   string `json:"path"` // relative to the output directory, slash-separated
	Config string `json:"config"`
	Split  string `json:"split"`
	Rows   int    `json:"rows"`
	Bytes  int64  `json:"bytes"`
	// LeftOut counts the rows the format cannot hold (OpenAI preference
	// rows whose completion holds a tool result or a customer turn).
	LeftOut int `json:"left_out"`
	// Reasoning counts the assistant messages of the exported rows that
	// carry reasoning, and ReasoningKept those whose reasoning the file
	// holds, in the form the format's trainer reads.
	Reasoning     int `json:"reasoning"`
	ReasoningKept int `json:"reasoning_kept"`
}

// ExportOptions are the choices of `synth export` beyond the format.
type ExportOptions struct {
	// DropReasoning leaves every message's reasoning out (--drop-reasoning).
	// The openai format never carries it: OpenAI fine-tuning has no field
	// for it.
	DropReasoning bool
}

// ExportRelease converts the Parquet files of a release (or of any folder
// holding sft/ and dpo/ shards, format 1 or 2) into format under out:
// out/{sft,dpo}/{split}.jsonl, one file per config and split, each written
// atomically. out must not be the release or inside it (a release holds
// only what its manifest lists).
func ExportRelease(ctx context.Context, release string, format Format, out string, opts ExportOptions) ([]ExportedFile, error) {
	if _, err := ParseFormat(string(format)); err != nil {
		return nil, err
	}
	// Resolved: -o may reach the release through a link.
	if _, in := realpath.Within(release, out); in {
		return nil, fmt.Errorf("-o %s is inside the release %s; export to a folder outside it", out, release)
	}
	var files []ExportedFile
	for _, config := range []string{"sft", "dpo"} {
		shards, err := filepath.Glob(filepath.Join(release, config, "*.parquet"))
		if err != nil {
			return nil, err
		}
		bySplit := map[string][]string{}
		for _, s := range shards {
			base := filepath.Base(s)
			if strings.HasPrefix(base, ".") {
				continue
			}
			split, _, ok := strings.Cut(base, "-")
			if !ok {
				return nil, fmt.Errorf("%s: not a shard name ({split}-00000-of-0000N.parquet)", s)
			}
			bySplit[split] = append(bySplit[split], s)
		}
		for _, split := range slices.Sorted(maps.Keys(bySplit)) {
			paths := bySplit[split]
			slices.Sort(paths)
			f, err := exportSplit(ctx, encoder{format, opts}, config, split, paths, out)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no sft/ or dpo/ Parquet files; is it a synth release?", release)
	}
	if format == FormatShareGPT {
		if err := writeDatasetInfo(out, files); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// exportSplit writes one config's split as JSON lines.
func exportSplit(ctx context.Context, enc encoder, config, split string, paths []string, out string) (ExportedFile, error) {
	rel := config + "/" + split + ".jsonl"
	path := filepath.Join(out, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return ExportedFile{}, fmt.Errorf("-o %s: %w", out, err)
	}
	af, err := CreateAtomic(path)
	if err != nil {
		return ExportedFile{}, err
	}
	defer af.Abort()
	bw := bufio.NewWriterSize(af, 1<<20)
	ef := ExportedFile{Path: rel, Config: config, Split: split}
	var line []byte
	emit := func(id string, b []byte, err error) error {
		if err != nil {
			return fmt.Errorf("row %q: %w", id, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if b == nil {
			ef.LeftOut++
			return nil
		}
		ef.Rows++
		if _, err := bw.Write(append(b, '\n')); err != nil {
			return err
		}
		line = b[:0]
		return nil
	}
	for _, p := range paths {
		if config == "sft" {
			err = ScanSFT(p, func(r SFTRow) error {
				b, err := enc.sft(line, &r, &ef)
				return emit(r.ID, b, err)
			})
		} else {
			err = ScanDPO(p, func(r DPORow) error {
				b, err := enc.dpo(line, &r, &ef)
				return emit(r.ID, b, err)
			})
		}
		if err != nil {
			return ExportedFile{}, fmt.Errorf("export %s: %w", p, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return ExportedFile{}, err
	}
	if err := af.Commit(); err != nil {
		return ExportedFile{}, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return ExportedFile{}, err
	}
	ef.Bytes = info.Size()
	return ef, nil
}

// encoder writes rows in one format.
type encoder struct {
	format Format
	opts   ExportOptions
}

// keeps reports whether the format carries reasoning as exported.
func (e encoder) keeps() bool { return e.format != FormatOpenAI && !e.opts.DropReasoning }

// sft appends one SFT row to dst (no newline) and counts its reasoning
// in ef.
func (e encoder) sft(dst []byte, r *SFTRow, ef *ExportedFile) ([]byte, error) {
	tools, err := toolsValue(r.Tools)
	if err != nil {
		return nil, err
	}
	e.tally(ef, r.Messages)
	switch e.format {
	case FormatOpenAI:
		return appendJSON(dst, openAIExample{Messages: openAIMessages(r.Messages, true), Tools: tools, ParallelToolCalls: parallel(r.Messages)})
	case FormatShareGPT:
		sys, turns := shareGPTTurns(r.Messages, true, e.keeps())
		return appendJSON(dst, shareGPTExample{Conversations: turns, System: sys, Tools: r.Tools})
	case FormatJSONL:
		return appendJSON(dst, jsonlSFT{ID: r.ID, BlueprintID: r.BlueprintID, Domain: r.Domain, Messages: e.wire(r.Messages), Tools: tools,
			NWrites: r.NWrites, NReads: r.NReads, Evidence: nonNil(r.Evidence), Behavior: r.Behavior, Engine: r.Engine, Kind: r.Kind, Labels: r.Labels})
	}
	return nil, fmt.Errorf("unknown format %q", e.format)
}

// dpo appends one DPO row to dst (no newline) and counts its reasoning
// in ef; it returns nil bytes for a row the format cannot hold.
func (e encoder) dpo(dst []byte, r *DPORow, ef *ExportedFile) ([]byte, error) {
	tools, err := toolsValue(r.Tools)
	if err != nil {
		return nil, err
	}
	switch e.format {
	case FormatOpenAI:
		// OpenAI's preference outputs hold assistant messages only: a
		// completion with a tool result or a customer turn in it is left
		// out (synth run --dpo-tools cut makes every pair fit).
		if !AssistantOnly(r) {
			return nil, nil
		}
		e.tally(ef, slices.Concat(r.Prompt, r.Chosen, r.Rejected))
		return appendJSON(dst, openAIPreference{
			Input:              openAIInput{Messages: openAIMessages(r.Prompt, false), Tools: tools, ParallelToolCalls: parallel(slices.Concat(r.Prompt, r.Chosen, r.Rejected))},
			PreferredOutput:    openAIMessages(r.Chosen, false),
			NonPreferredOutput: openAIMessages(r.Rejected, false),
		})
	case FormatShareGPT:
		// LLaMA-Factory ranks one response turn (chosen and rejected are
		// single {"from", "value"} objects after a prompt ending with a
		// human or observation turn): each side's first turn, which is
		// where the pair diverges.
		e.tally(ef, slices.Concat(r.Prompt, r.Chosen[:min(1, len(r.Chosen))], r.Rejected[:min(1, len(r.Rejected))]))
		sys, turns := shareGPTTurns(r.Prompt, false, e.keeps())
		_, chosen := shareGPTTurns(r.Chosen, false, e.keeps())
		_, rejected := shareGPTTurns(r.Rejected, false, e.keeps())
		if len(chosen) == 0 || len(rejected) == 0 {
			return nil, fmt.Errorf("chosen or rejected is empty")
		}
		return appendJSON(dst, shareGPTPreference{Conversations: turns, Chosen: chosen[0], Rejected: rejected[0], System: sys, Tools: r.Tools})
	case FormatJSONL:
		e.tally(ef, slices.Concat(r.Prompt, r.Chosen, r.Rejected))
		return appendJSON(dst, jsonlDPO{ID: r.ID, BlueprintID: r.BlueprintID, Domain: r.Domain,
			Prompt: e.wire(r.Prompt), Chosen: e.wire(r.Chosen), Rejected: e.wire(r.Rejected), Tools: tools,
			Failure: r.Failure, DivergenceTurn: r.DivergenceTurn})
	}
	return nil, fmt.Errorf("unknown format %q", e.format)
}

// tally counts the messages carrying reasoning that a row exports.
func (e encoder) tally(ef *ExportedFile, msgs []record.Message) {
	for i := range msgs {
		if msgs[i].ReasoningContent != "" {
			ef.Reasoning++
			if e.keeps() {
				ef.ReasoningKept++
			}
		}
	}
}

// wire returns msgs as their Chat Completions wire JSON (record.Message's
// own encoding), never null, without reasoning under --drop-reasoning.
func (e encoder) wire(msgs []record.Message) []record.Message {
	if msgs == nil {
		return []record.Message{}
	}
	if !e.keeps() {
		msgs = slices.Clone(msgs)
		for i := range msgs {
			msgs[i].ReasoningContent = ""
		}
	}
	return msgs
}

// AssistantOnly reports whether a pair's completions hold assistant
// messages only, as OpenAI's preference fine-tuning requires of
// preferred_output and non_preferred_output.
func AssistantOnly(r *DPORow) bool {
	only := func(msgs []record.Message) bool {
		return len(msgs) > 0 && !slices.ContainsFunc(msgs, func(m record.Message) bool { return m.Role != "assistant" })
	}
	return only(r.Chosen) && only(r.Rejected)
}

// appendJSON encodes v without HTML escaping (prompts are full of tags).
func appendJSON(dst []byte, v any) ([]byte, error) {
	b, err := tools.MarshalUnescaped(v)
	return append(dst, b...), err
}

// toolsValue returns the tools array as raw JSON, [] when there is none.
func toolsValue(tools string) (json.RawMessage, error) {
	if strings.TrimSpace(tools) == "" {
		return json.RawMessage("[]"), nil
	}
	if !json.Valid([]byte(tools)) {
		return nil, fmt.Errorf("tools is not valid JSON")
	}
	return json.RawMessage(tools), nil
}

func nonNil(v []int32) []int32 {
	if v == nil {
		return []int32{}
	}
	return v
}

// parallel reports whether any assistant turn makes more than one call:
// OpenAI fine-tuning refuses such examples unless parallel_tool_calls is
// true, and trains single calls when it is false.
func parallel(msgs []record.Message) bool {
	for i := range msgs {
		if len(msgs[i].ToolCalls) > 1 {
			return true
		}
	}
	return false
}

type jsonlSFT struct {
	ID          string           `json:"id"`
	BlueprintID string           `json:"blueprint_id"`
	Domain      string           `json:"domain"`
	Messages    []record.Message `json:"messages"`
	Tools       json.RawMessage  `json:"tools"`
	NWrites     int32            `json:"n_writes"`
	NReads      int32            `json:"n_reads"`
	Evidence    []int32          `json:"evidence"`
	Behavior    string           `json:"behavior"`
	Engine      string           `json:"engine"`
	Kind        string           `json:"kind"`
	// Labels is absent for a row of a release before format 4.
	Labels json.RawMessage `json:"labels,omitempty"`
}

type jsonlDPO struct {
	ID             string           `json:"id"`
	BlueprintID    string           `json:"blueprint_id"`
	Domain         string           `json:"domain"`
	Prompt         []record.Message `json:"prompt"`
	Chosen         []record.Message `json:"chosen"`
	Rejected       []record.Message `json:"rejected"`
	Tools          json.RawMessage  `json:"tools"`
	Failure        string           `json:"failure"`
	DivergenceTurn int32            `json:"divergence_turn"`
}

// OpenAI fine-tuning shapes (platform docs, "Fine-tuning: preparing your
// dataset", function calling and preference fine-tuning).
type openAIExample struct {
	Messages          []openAIMessage `json:"messages"`
	Tools             json.RawMessage `json:"tools"`
	ParallelToolCalls bool            `json:"parallel_tool_calls"`
}

type openAIInput = openAIExample

type openAIPreference struct {
	Input              openAIInput     `json:"input"`
	PreferredOutput    []openAIMessage `json:"preferred_output"`
	NonPreferredOutput []openAIMessage `json:"non_preferred_output"`
}

// openAIMessage is a chat message as the fine-tuning API takes it: no
// reasoning_content (it is not an API field) and no name on tool
// messages (tool_call_id links a result to its call); content is left
// out of a tool-call turn that has none. weight is a key of supervised
// rows only: preference rows carry none.
type openAIMessage struct {
	Role       string            `json:"role"`
	Content    *string           `json:"content,omitempty"`
	ToolCalls  []record.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string            `json:"tool_call_id,omitempty"`
	// Weight 0 keeps a recovery row's mistake out of the loss (OpenAI's
	// per-message weight, assistant messages only).
	Weight *int `json:"weight,omitempty"`
}

func openAIMessages(msgs []record.Message, weights bool) []openAIMessage {
	out := make([]openAIMessage, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		om := openAIMessage{Role: m.Role, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}
		if weights {
			om.Weight = m.Weight
		}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			c := m.Content
			om.Content = &c
		}
		if len(om.ToolCalls) > 0 {
			calls := make([]record.ToolCall, len(om.ToolCalls))
			copy(calls, om.ToolCalls)
			for j := range calls {
				if strings.TrimSpace(calls[j].Function.Arguments) == "" {
					calls[j].Function.Arguments = "{}"
				}
			}
			om.ToolCalls = calls
		}
		out[i] = om
	}
	return out
}

// ShareGPT shapes, as LLaMA-Factory documents them (data/README.md:
// "sharegpt" with function_call and observation turns, a system column
// and tools as a JSON string; its converter, data/converter.py, wants
// human/observation and gpt/function_call turns to alternate) and Axolotl
// reads them.
type shareGPTTurn struct {
	From  string `json:"from"`
	Value string `json:"value"`
}

type shareGPTExample struct {
	Conversations []shareGPTTurn `json:"conversations"`
	System        string         `json:"system,omitempty"`
	Tools         string         `json:"tools,omitempty"`
}

type shareGPTPreference struct {
	Conversations []shareGPTTurn `json:"conversations"`
	Chosen        shareGPTTurn   `json:"chosen"`
	Rejected      shareGPTTurn   `json:"rejected"`
	System        string         `json:"system,omitempty"`
	Tools         string         `json:"tools,omitempty"`
}

// shareGPTTurns maps messages to ShareGPT turns: the leading system
// message becomes the system field; user → human, assistant text → gpt,
// an assistant's calls → one function_call turn whose value is the call
// {"name", "arguments"} (a list of them for parallel calls), tool results
// → observation (consecutive results of parallel calls joined into one
// turn as a JSON list, since LLaMA-Factory wants observations and calls
// to alternate). With trimUser, a trailing user turn is dropped: a
// ShareGPT conversation ends with the model's turn. With reasoning, an
// assistant turn's reasoning opens its value as LLaMA-Factory's
// reasoning templates read it (thought_words, data/template.py):
// "<think>\nREASONING\n</think>\n\n" before the text, or before the
// call's JSON, which its FunctionFormatter takes the thought off.
func shareGPTTurns(msgs []record.Message, trimUser, reasoning bool) (string, []shareGPTTurn) {
	var sys string
	if len(msgs) > 0 && msgs[0].Role == "system" {
		sys, msgs = msgs[0].Content, msgs[1:]
	}
	turns := make([]shareGPTTurn, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := &msgs[i]
		switch m.Role {
		case "user":
			turns = append(turns, shareGPTTurn{"human", m.Content})
		case "system":
			// A later system message (none in synth's data) is kept as a
			// human turn rather than lost.
			turns = append(turns, shareGPTTurn{"human", m.Content})
		case "assistant":
			think := ""
			if reasoning && m.ReasoningContent != "" {
				think = thinkOpen + m.ReasoningContent + thinkClose
			}
			if len(m.ToolCalls) == 0 {
				turns = append(turns, shareGPTTurn{"gpt", think + m.Content})
				continue
			}
			calls := make([]json.RawMessage, len(m.ToolCalls))
			for j, tc := range m.ToolCalls {
				b := []byte(`{"name":`)
				b = appendString(b, tc.Function.Name)
				b = append(b, `,"arguments":`...)
				b = AppendArguments(b, tc.Function.Arguments)
				calls[j] = append(b, '}')
			}
			value := string(calls[0])
			if len(calls) > 1 {
				b, _ := json.Marshal(calls)
				value = string(b)
			}
			turns = append(turns, shareGPTTurn{"function_call", think + value})
		case "tool":
			j := i
			for j+1 < len(msgs) && msgs[j+1].Role == "tool" {
				j++
			}
			if j == i {
				turns = append(turns, shareGPTTurn{"observation", m.Content})
				continue
			}
			results := make([]string, 0, j-i+1)
			for k := i; k <= j; k++ {
				results = append(results, msgs[k].Content)
			}
			b, _ := json.Marshal(results)
			turns = append(turns, shareGPTTurn{"observation", string(b)})
			i = j
		}
	}
	if trimUser && len(turns) > 0 && turns[len(turns)-1].From == "human" {
		turns = turns[:len(turns)-1]
	}
	return sys, turns
}

// LLaMA-Factory's default thought_words, which its ReasoningTemplate and
// FunctionFormatter find a turn's reasoning by.
const (
	thinkOpen  = "<think>\n"
	thinkClose = "\n</think>\n\n"
)

// writeDatasetInfo registers the exported files with LLaMA-Factory
// (dataset_info.json: file, sharegpt formatting, column and tag names),
// one dataset per config and split, named synth_{config}_{split}.
func writeDatasetInfo(out string, files []ExportedFile) error {
	type columns struct {
		Messages string `json:"messages"`
		System   string `json:"system"`
		Tools    string `json:"tools"`
		Chosen   string `json:"chosen,omitempty"`
		Rejected string `json:"rejected,omitempty"`
	}
	type tags struct {
		RoleTag      string `json:"role_tag"`
		ContentTag   string `json:"content_tag"`
		UserTag      string `json:"user_tag"`
		AssistantTag string `json:"assistant_tag"`
		Observation  string `json:"observation_tag"`
		FunctionTag  string `json:"function_tag"`
	}
	type entry struct {
		FileName   string  `json:"file_name"`
		Formatting string  `json:"formatting"`
		Ranking    bool    `json:"ranking,omitempty"`
		Columns    columns `json:"columns"`
		Tags       tags    `json:"tags"`
	}
	info := map[string]entry{}
	for _, f := range files {
		e := entry{FileName: f.Path, Formatting: "sharegpt",
			Columns: columns{Messages: "conversations", System: "system", Tools: "tools"},
			Tags: tags{RoleTag: "from", ContentTag: "value", UserTag: "human", AssistantTag: "gpt",
				Observation: "observation", FunctionTag: "function_call"}}
		if f.Config == "dpo" {
			e.Ranking = true
			e.Columns.Chosen, e.Columns.Rejected = "chosen", "rejected"
		}
		info["synth_"+f.Config+"_"+f.Split] = e
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(out, "dataset_info.json"), append(b, '\n'))
}
