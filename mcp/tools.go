package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/synth-data/synth/openapi"
)

// Bounds of a tool list read from a file or a server: it is someone
// else's, and a server may answer without end.
const (
	MaxToolsBytes = 16 << 20
	MaxTools      = 1000
	// maxToolName is MCP's bound on a tool's name.
	maxToolName = 128
	// maxPages bounds the pages of a paginated tools/list.
	maxPages = 100
)

// Listing is an MCP server's tool list and what it says of itself.
type Listing struct {
	Tools []openapi.Tool
	// Server and Version are its serverInfo, when it was asked.
	Server, Version string
}

// wireTool is a tool as tools/list gives it.
type wireTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations *struct {
		Title           string `json:"title"`
		ReadOnlyHint    *bool  `json:"readOnlyHint"`
		DestructiveHint *bool  `json:"destructiveHint"`
	} `json:"annotations"`
}

// ReadTools reads a saved tools/list result: {"tools": [...]}, the
// JSON-RPC response holding it ({"result": {"tools": [...]}}), or the
// bare array. name names the source in errors.
func ReadTools(r io.Reader, name string) (*Listing, error) {
	raw, err := io.ReadAll(io.LimitReader(r, MaxToolsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(raw) > MaxToolsBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB, more than a tool list holds", name, MaxToolsBytes>>20)
	}
	return parseTools(raw, name)
}

func parseTools(raw []byte, name string) (*Listing, error) {
	raw = bytes.TrimSpace(raw)
	var list []json.RawMessage
	switch {
	case len(raw) > 0 && raw[0] == '[':
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("%s: not a JSON array of tools: %w", name, err)
		}
	default:
		var doc struct {
			Tools  []json.RawMessage `json:"tools"`
			Result *struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("%s: not a tools/list result ({\"tools\": [...]}): %w", name, err)
		}
		list = doc.Tools
		if doc.Result != nil && list == nil {
			list = doc.Result.Tools
		}
		if list == nil {
			return nil, fmt.Errorf("%s: no \"tools\" array: save the result of an MCP tools/list request ({\"tools\": [...]})", name)
		}
	}
	if len(list) > MaxTools {
		return nil, fmt.Errorf("%s: %d tools, more than the %d an import takes", name, len(list), MaxTools)
	}
	out := &Listing{}
	seen := map[string]bool{}
	for i, item := range list {
		t, err := toolOf1(item)
		if err != nil {
			return nil, fmt.Errorf("%s: tools[%d]: %w", name, i, err)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("%s: tools[%d]: the name %q is listed twice", name, i, t.Name)
		}
		seen[t.Name] = true
		out.Tools = append(out.Tools, t)
	}
	return out, nil
}

// toolOf1 checks one tool of a list.
func toolOf1(raw json.RawMessage) (openapi.Tool, error) {
	var w wireTool
	if err := json.Unmarshal(raw, &w); err != nil {
		return openapi.Tool{}, fmt.Errorf("not a tool object: %w", err)
	}
	switch {
	case strings.TrimSpace(w.Name) == "":
		return openapi.Tool{}, errors.New("no name")
	case len(w.Name) > maxToolName:
		return openapi.Tool{}, fmt.Errorf("name of %d bytes; MCP allows %d", len(w.Name), maxToolName)
	}
	t := openapi.Tool{Name: w.Name, Title: w.Title, Description: w.Description}
	if len(w.InputSchema) > 0 && string(w.InputSchema) != "null" {
		if err := json.Unmarshal(w.InputSchema, &t.InputSchema); err != nil || t.InputSchema == nil {
			return openapi.Tool{}, fmt.Errorf("%s: inputSchema is not a JSON object", w.Name)
		}
	}
	if a := w.Annotations; a != nil {
		t.ReadOnly, t.Destructive = a.ReadOnlyHint, a.DestructiveHint
		t.Title = cmp.Or(t.Title, a.Title)
	}
	return t, nil
}

// ListTools starts argv as an MCP server over stdio, lists its tools
// (every page) and stops it, within timeout. The server is started as
// given, with no shell, and is the only thing run; its standard error
// is kept (bounded) for the message of a failure.
func ListTools(ctx context.Context, argv []string, timeout time.Duration) (*Listing, error) {
	if len(argv) == 0 {
		return nil, errors.New("--command: give the server's command line (e.g. --command \"node server.js\")")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	errb := &tailBuffer{max: 8 << 10}
	cmd.Stderr = errb
	what := strings.Join(argv, " ")
	fail := func(err error) error {
		if ctx.Err() != nil {
			err = fmt.Errorf("no tool list within %v (--timeout)", timeout)
		}
		if s := strings.TrimSpace(errb.String()); s != "" {
			return fmt.Errorf("--command %s: %w; its stderr ends: %s", what, err, s)
		}
		return fmt.Errorf("--command %s: %w", what, err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "synth-import", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		return nil, fail(err)
	}
	defer cs.Close()
	res := &sdk.ListToolsResult{}
	var cursor string
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fail(fmt.Errorf("more than %d pages of tools", maxPages))
		}
		r, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, fail(err)
		}
		res.Tools = append(res.Tools, r.Tools...)
		if len(res.Tools) > MaxTools {
			return nil, fail(fmt.Errorf("more than %d tools", MaxTools))
		}
		if cursor = r.NextCursor; cursor == "" {
			break
		}
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, fail(err)
	}
	l, err := parseTools(raw, "--command "+what)
	if err != nil {
		return nil, err
	}
	if info := cs.InitializeResult(); info != nil && info.ServerInfo != nil {
		l.Server, l.Version = info.ServerInfo.Name, info.ServerInfo.Version
	}
	return l, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// SplitCommand splits a command line into its words as a shell would
// for plain words and quotes ('…', "…", \ escapes), without running a
// shell: no variables, globs or pipes.
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quote, esc := false, rune(0), false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc, in = false, true
		case r == '\\' && quote != '\'':
			esc = true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 || esc {
		return nil, fmt.Errorf("--command %q: an unclosed quote or a trailing backslash", s)
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}
