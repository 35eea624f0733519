package intake

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/record"
)

// MaxLine bounds one JSONL line (one dialogue): far above any real
// dialogue, so a file without newlines cannot make synth read it whole.
const MaxLine = 64 << 20

// Options say how to read.
type Options struct {
	// Tasks are τ²-bench tasks by id (ReadTasks): the ground truth of a
	// JSONL line naming a task_id, and of results files' simulations.
	Tasks map[string]*Truth
}

// Read streams the dialogues of a file to yield, in file order. It
// returns an error only when the file cannot be read at all; a line or
// entry that cannot be read is yielded with Err set. An error from yield
// stops the read and is returned.
func Read(ctx context.Context, path string, opts Options, yield func(Dialogue) error) error {
	// A fifo or a device is refused before it is opened: opening a fifo
	// waits for a writer, and a device may never end.
	f, err := limitio.OpenNamed(path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	format, err := detect(path, br)
	if err != nil {
		return err
	}
	switch format {
	case FormatTauBench:
		return readTauBench(ctx, path, br, yield)
	case FormatTau2:
		tasks := opts.Tasks
		if tasks == nil {
			// The results file holds its tasks; read them first, for a
			// file that lists them after the simulations.
			if tasks, err = resultsTasks(path); err != nil {
				return err
			}
		}
		return readTau2(ctx, path, br, tasks, yield)
	}
	return readJSONL(ctx, path, br, opts.Tasks, yield)
}

// detect tells the layouts apart by their first line: a JSON array is
// τ-bench's trajectories, a JSON object that is the whole first line a
// JSONL dialogue, any other object (pretty-printed, or one holding
// "simulations") a τ² results file.
func detect(path string, br *bufio.Reader) (string, error) {
	if strings.HasSuffix(path, ".jsonl") {
		return FormatJSONL, nil
	}
	for {
		b, err := br.Peek(1)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return FormatJSONL, nil // empty: no dialogues
			}
			return "", err
		}
		if b[0] != ' ' && b[0] != '\n' && b[0] != '\r' && b[0] != '\t' && b[0] != 0xEF && b[0] != 0xBB && b[0] != 0xBF {
			break
		}
		br.ReadByte()
	}
	head, _ := br.Peek(1)
	switch head[0] {
	case '[':
		return FormatTauBench, nil
	case '{':
		peek, _ := br.Peek(br.Size())
		line, _, _ := bytes.Cut(peek, []byte("\n"))
		line = bytes.TrimSpace(line)
		var top map[string]json.RawMessage
		if len(line) < len(peek) && json.Unmarshal(line, &top) == nil {
			if _, ok := top["simulations"]; ok {
				return FormatTau2, nil
			}
			return FormatJSONL, nil
		}
		if bytes.HasSuffix(line, []byte("}")) && len(line) < len(peek) {
			return FormatJSONL, nil // a malformed first line, reported by number
		}
		return FormatTau2, nil
	}
	return FormatJSONL, nil
}

// jsonlLine is one line of synth's JSONL input.
type jsonlLine struct {
	ID          json.RawMessage `json:"id"`
	Messages    []openAIMessage `json:"messages"`
	GroundTruth json.RawMessage `json:"ground_truth"`
	TaskID      json.RawMessage `json:"task_id"`
}

func readJSONL(ctx context.Context, path string, br *bufio.Reader, tasks map[string]*Truth, yield func(Dialogue) error) error {
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := limitio.ReadLine(br, MaxLine)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return nil
		}
		d := Dialogue{Source: fmt.Sprintf("%s:%d", path, n), Format: FormatJSONL, ID: fmt.Sprintf("line-%d", n)}
		switch {
		case errors.Is(err, limitio.ErrLongLine):
			d.Err = fmt.Errorf("line %d: longer than %s; one dialogue a line", n, limitio.Bytes(MaxLine))
		case err != nil && !errors.Is(err, io.EOF):
			return fmt.Errorf("%s: %w", path, err)
		default:
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			d.Err = d.fromJSONL(line, tasks)
			if d.Err != nil {
				d.Err = fmt.Errorf("line %d: %w", n, d.Err)
			}
		}
		if err := yield(d); err != nil {
			return err
		}
	}
}

func (d *Dialogue) fromJSONL(line []byte, tasks map[string]*Truth) error {
	var l jsonlLine
	if err := json.Unmarshal(line, &l); err != nil {
		return fmt.Errorf("not a JSON dialogue: %w", err)
	}
	if id := idText(l.ID); id != "" {
		d.ID = id
	}
	if len(l.Messages) == 0 {
		return errors.New(`no "messages": a line is {"id", "messages": [...], "ground_truth": {...}} or names a "task_id"`)
	}
	msgs, err := openAIMessages(l.Messages)
	if err != nil {
		return err
	}
	d.Messages = msgs
	switch {
	case len(l.GroundTruth) > 0 && string(l.GroundTruth) != "null":
		if d.Truth, err = truthOf(l.GroundTruth); err != nil {
			return fmt.Errorf("ground_truth: %w", err)
		}
	case len(l.TaskID) > 0:
		d.TaskID = idText(l.TaskID)
		if tasks == nil {
			return fmt.Errorf("task_id %s: give the tasks file with --tasks", d.TaskID)
		}
		t, ok := tasks[d.TaskID]
		if !ok {
			return fmt.Errorf("task_id %s is not a task of the --tasks file", d.TaskID)
		}
		d.Truth = t
	}
	return nil
}

// idText reads an id given as a string or a number.
func idText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// ReadTasks reads a τ²-bench tasks.json: each task's evaluation criteria
// (gold actions, communicate_info) as ground truth, by task id.
func ReadTasks(path string) (map[string]*Truth, error) {
	data, err := limitio.ReadRegular(path, 256<<20)
	if err != nil {
		return nil, err
	}
	var tasks []tau2Task
	if err := json.Unmarshal(data, &tasks); err != nil {
		return nil, fmt.Errorf("%s: not τ²-bench's task list (a JSON array of tasks with id and evaluation_criteria): %w", path, err)
	}
	out := make(map[string]*Truth, len(tasks))
	for i, t := range tasks {
		id := idText(t.ID)
		if id == "" {
			return nil, fmt.Errorf("%s: task %d has no id", path, i)
		}
		tr, err := t.truth()
		if err != nil {
			return nil, fmt.Errorf("%s: task %s: %w", path, id, err)
		}
		out[id] = tr
	}
	return out, nil
}

// tau2Task is a τ²-bench task, as far as ground truth goes.
type tau2Task struct {
	ID       json.RawMessage `json:"id"`
	Criteria *struct {
		Actions []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"actions"`
		CommunicateInfo []string `json:"communicate_info"`
	} `json:"evaluation_criteria"`
}

func (t tau2Task) truth() (*Truth, error) {
	tr := &Truth{}
	if t.Criteria == nil {
		return tr, nil
	}
	tr.Outputs = t.Criteria.CommunicateInfo
	for i, a := range t.Criteria.Actions {
		if a.Name == "" {
			return nil, fmt.Errorf("evaluation_criteria.actions[%d]: no name", i)
		}
		args, err := argumentsText(a.Arguments)
		if err != nil {
			return nil, fmt.Errorf("evaluation_criteria.actions[%d].arguments: %w", i, err)
		}
		tr.Actions = append(tr.Actions, Action{Name: a.Name, Arguments: json.RawMessage(args)})
	}
	return tr, nil
}

// τ²-bench's results layout (tau2.data_model.simulation.Results).
type tau2Sim struct {
	ID                json.RawMessage `json:"id"`
	TaskID            json.RawMessage `json:"task_id"`
	Trial             *int            `json:"trial"`
	TerminationReason string          `json:"termination_reason"`
	Messages          []tau2Message   `json:"messages"`
}

type tau2Message struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Requestor string          `json:"requestor"`
	} `json:"tool_calls"`
	// A tool message's id is the id of the call it answers.
	ID        string `json:"id"`
	Requestor string `json:"requestor"`
}

// resultsTasks reads the tasks of a τ² results file in a pass of its
// own, skipping the simulations entry by entry.
func resultsTasks(path string) (map[string]*Truth, error) {
	f, err := limitio.OpenNamed(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	var tasks map[string]*Truth
	err = topLevel(dec, func(key string) error {
		if key != "tasks" {
			return skipValue(dec)
		}
		var list []tau2Task
		if err := dec.Decode(&list); err != nil {
			return fmt.Errorf("tasks: %w", err)
		}
		tasks = map[string]*Truth{}
		for i, t := range list {
			tr, err := t.truth()
			if err != nil {
				return fmt.Errorf("tasks[%d]: %w", i, err)
			}
			tasks[idText(t.ID)] = tr
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: not a τ²-bench results file: %w", path, err)
	}
	return tasks, nil
}

// topLevel walks the keys of a JSON object, handing each to fn, which
// must consume its value.
func topLevel(dec *json.Decoder, fn func(key string) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("the top level is not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if err := fn(key); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// skipValue consumes one value; an array is read element by element so
// a large one never sits in memory whole.
func skipValue(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '[':
		for dec.More() {
			var skip struct{}
			if err := dec.Decode(&skip); err != nil {
				return err
			}
		}
	case '{':
		for dec.More() {
			if _, err := dec.Token(); err != nil {
				return err
			}
			if err := skipValue(dec); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token()
	return err
}

func readTau2(ctx context.Context, path string, br *bufio.Reader, tasks map[string]*Truth, yield func(Dialogue) error) error {
	dec := json.NewDecoder(br)
	seen := false
	err := topLevel(dec, func(key string) error {
		if key != "simulations" {
			return skipValue(dec)
		}
		seen = true
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return errors.New("simulations is not a list")
		}
		for i := 0; dec.More(); i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			d := Dialogue{Source: fmt.Sprintf("%s: simulations[%d]", path, i), Format: FormatTau2, ID: fmt.Sprintf("simulation-%d", i)}
			var sim tau2Sim
			if err := dec.Decode(&sim); err != nil {
				// The decoder cannot resynchronise inside a broken entry.
				return fmt.Errorf("simulations[%d]: %w", i, err)
			}
			d.Err = d.fromTau2(sim, tasks)
			if d.Err != nil {
				d.Err = fmt.Errorf("simulations[%d]: %w", i, d.Err)
			}
			if err := yield(d); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !seen {
		return fmt.Errorf("%s: a JSON object without \"simulations\": neither a τ²-bench results file nor JSONL (one dialogue a line)", path)
	}
	return nil
}

func (d *Dialogue) fromTau2(sim tau2Sim, tasks map[string]*Truth) error {
	if id := idText(sim.ID); id != "" {
		d.ID = id
	}
	d.TaskID = idText(sim.TaskID)
	if t, ok := tasks[d.TaskID]; ok {
		d.Truth = t
	} else if d.TaskID != "" {
		return fmt.Errorf("task_id %s is not among the file's tasks", d.TaskID)
	}
	d.Ending = tau2Ending(sim.TerminationReason)
	for i, m := range sim.Messages {
		text, err := contentText(m.Content)
		if err != nil {
			return fmt.Errorf("messages[%d].content: %w", i, err)
		}
		msg := Message{Role: m.Role, Content: text}
		switch m.Role {
		case "assistant", "user":
			for j, c := range m.ToolCalls {
				if c.Requestor == "user" || m.Role == "user" {
					return fmt.Errorf("messages[%d].tool_calls[%d]: a call of the user's own tools (τ²'s telecom); synth verifies agent tools only", i, j)
				}
				args, err := argumentsText(c.Arguments)
				if err != nil {
					return fmt.Errorf("messages[%d].tool_calls[%d].arguments: %w", i, j, err)
				}
				msg.Calls = append(msg.Calls, Call{ID: c.ID, Name: c.Name, Arguments: args})
			}
		case "tool":
			msg.CallID = m.ID
		case "system":
		default:
			return fmt.Errorf("messages[%d]: role %q is not system, user, assistant or tool", i, m.Role)
		}
		d.Messages = append(d.Messages, msg)
	}
	return nil
}

// tau2Ending maps τ²'s termination reasons to synth's endings; the
// user's stop tokens, where present, say more.
func tau2Ending(reason string) string {
	switch reason {
	case "user_stop", "agent_stop":
		return record.EndStop
	case "max_steps":
		return record.EndMaxTurns
	}
	return ""
}

// τ-bench's historical trajectories (tau_bench.types.EnvRunResult).
type tauBenchRun struct {
	TaskID json.RawMessage `json:"task_id"`
	Trial  *int            `json:"trial"`
	Info   struct {
		Task *struct {
			Actions []struct {
				Name   string          `json:"name"`
				Kwargs json.RawMessage `json:"kwargs"`
			} `json:"actions"`
			Outputs []string `json:"outputs"`
		} `json:"task"`
	} `json:"info"`
	Traj []openAIMessage `json:"traj"`
}

func readTauBench(ctx context.Context, path string, br *bufio.Reader, yield func(Dialogue) error) error {
	dec := json.NewDecoder(br)
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for i := 0; dec.More(); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		d := Dialogue{Source: fmt.Sprintf("%s: [%d]", path, i), Format: FormatTauBench, ID: fmt.Sprintf("run-%d", i)}
		var run tauBenchRun
		if err := dec.Decode(&run); err != nil {
			return fmt.Errorf("%s: [%d]: %w", path, i, err)
		}
		d.Err = d.fromTauBench(run)
		if d.Err != nil {
			d.Err = fmt.Errorf("[%d]: %w", i, d.Err)
		}
		if err := yield(d); err != nil {
			return err
		}
	}
	return nil
}

func (d *Dialogue) fromTauBench(run tauBenchRun) error {
	d.TaskID = idText(run.TaskID)
	if d.TaskID != "" {
		d.ID = "task-" + d.TaskID
		if run.Trial != nil {
			d.ID += "-trial-" + strconv.Itoa(*run.Trial)
		}
	}
	if len(run.Traj) == 0 {
		return errors.New(`no "traj": not a τ-bench trajectory`)
	}
	msgs, err := openAIMessages(run.Traj)
	if err != nil {
		return fmt.Errorf("traj: %w", err)
	}
	d.Messages = msgs
	if t := run.Info.Task; t != nil {
		d.Truth = &Truth{Outputs: t.Outputs}
		for i, a := range t.Actions {
			args, err := argumentsText(a.Kwargs)
			if err != nil {
				return fmt.Errorf("info.task.actions[%d].kwargs: %w", i, err)
			}
			d.Truth.Actions = append(d.Truth.Actions, Action{Name: a.Name, Arguments: json.RawMessage(args)})
		}
	}
	return nil
}
