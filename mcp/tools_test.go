package mcp_test

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/synth-data/synth/mcp"
	"github.com/synth-data/synth/serve"
)

// serveEnv makes this test binary an MCP server of retail on stdio when
// set: the server ListTools starts in TestListToolsRoundTrip.
const serveEnv = "SYNTH_TEST_MCP_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		env, err := serve.New(serve.Defaults())
		if err == nil {
			var s *mcp.Server
			if s, err = mcp.New(context.Background(), env, mcp.Options{Start: start("retail", 1, 0)}); err == nil {
				err = s.Run(context.Background(), &sdk.StdioTransport{})
			}
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// synth's own retail, served over MCP and listed by a client that
// starts the server as a command, imports back with its reads (and
// generic tools) read and its writes written, as its tools.json says.
func TestListToolsRoundTrip(t *testing.T) {
	t.Setenv(serveEnv, "1")
	l, err := mcp.ListTools(context.Background(), []string{os.Args[0]}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if l.Server != "synth-retail" || len(l.Tools) != 16 {
		t.Fatalf("server %q, %d tools; want synth-retail's 16", l.Server, len(l.Tools))
	}
	res, dir := importList(t, "retail-mcp", l)
	checkToolsKept(t, l, res)
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	for _, tool := range l.Tools {
		if tool.ReadOnly == nil && tool.Destructive == nil {
			t.Errorf("%s: neither readOnlyHint nor destructiveHint", tool.Name)
		}
	}
}

// A server that does not answer in time, or is no server, fails with
// the command named; nothing is run that was not named.
func TestListToolsFailures(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"/nonexistent/server"}, "/nonexistent/server"},
		{[]string{"sh", "-c", "echo not a server >&2; exit 3"}, "not a server"},
		{[]string{"sleep", "30"}, "--timeout"},
	} {
		_, err := mcp.ListTools(context.Background(), tc.argv, 2*time.Second)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want an error naming %q", tc.argv, err, tc.want)
		}
	}
}

func TestReadTools(t *testing.T) {
	for _, tc := range []struct {
		in    string
		tools int
		want  string
	}{
		{`{"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}`, 1, ""},
		{`{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a"}, {"name": "b"}]}}`, 2, ""},
		{`[{"name": "a", "annotations": {"readOnlyHint": true}}]`, 1, ""},
		{`{"tools": [{"name": ""}]}`, 0, "tools[0]: no name"},
		{`{"tools": [{"name": "a"}, {"name": "a"}]}`, 0, "listed twice"},
		{`{"tools": [{"name": "a", "inputSchema": 3}]}`, 0, "inputSchema"},
		{`{"prompts": []}`, 0, `no "tools" array`},
		{`not json`, 0, "not a tools/list result"},
		{`{"tools": [{"name": "` + strings.Repeat("x", 200) + `"}]}`, 0, "MCP allows 128"},
	} {
		l, err := mcp.ReadTools(strings.NewReader(tc.in), "list.json")
		switch {
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "list.json")):
			t.Errorf("%.60s: %v; want an error naming list.json and %q", tc.in, err, tc.want)
		case tc.want == "" && (err != nil || len(l.Tools) != tc.tools):
			t.Errorf("%.60s: %v, %+v; want %d tools", tc.in, err, l, tc.tools)
		}
	}
	if _, err := mcp.ReadTools(strings.NewReader(strings.Repeat(" ", mcp.MaxToolsBytes+1)), "big.json"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("an oversized list: %v", err)
	}
}

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"node server.js", []string{"node", "server.js"}},
		{`npx -y "@scope/server name" --dir '/tmp/a b'`, []string{"npx", "-y", "@scope/server name", "--dir", "/tmp/a b"}},
		{`a\ b "" c`, []string{"a b", "", "c"}},
		{"  ", nil},
	} {
		got, err := mcp.SplitCommand(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %q %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`node "server.js`, `node server.js\`} {
		if _, err := mcp.SplitCommand(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The tool-list reader never panics, and what it accepts has named,
// distinct tools whose schemas are objects.
func FuzzReadTools(f *testing.F) {
	for _, s := range []string{`{"tools": [{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}]}`,
		`{"result": {"tools": [{"name": "b", "annotations": {"readOnlyHint": false, "destructiveHint": true}}]}}`, `[]`, `[{"name": 1}]`, `{"tools": null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		l, err := mcp.ReadTools(strings.NewReader(string(raw)), "fuzz.json")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, tool := range l.Tools {
			if strings.TrimSpace(tool.Name) == "" || seen[tool.Name] {
				t.Fatalf("accepted tool %q (seen %v)", tool.Name, seen[tool.Name])
			}
			seen[tool.Name] = true
		}
	})
}
