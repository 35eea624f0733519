package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/synth-data/synth/internal/testpacks"
)

// synth mcp serves a domain on its standard input and output until the
// client goes, and exits 0 then; a pack folder is served as a built-in
// domain is.
func TestMCPStdio(t *testing.T) {
	for _, tc := range []struct {
		domain string
		tools  int
	}{{"retail", 16}, {testpacks.Dir("library"), 0}} {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		var errb bytes.Buffer
		done := make(chan error, 1)
		go func() {
			done <- cmdMCP(context.Background(), env{stdin: inR, stdout: outW, stderr: &errb}, []string{"--domain", tc.domain, "--seed", "3", "--index", "1"})
			outW.Close()
		}()
		c := sdk.NewClient(&sdk.Implementation{Name: "synth-test", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
		if err != nil {
			t.Fatalf("%s: %v (stderr %s)", tc.domain, err, errb.String())
		}
		if got := cs.InitializeResult().Instructions; !strings.Contains(got, "## ") && len(got) < 100 {
			t.Errorf("%s: instructions %q; want the domain policy", tc.domain, got)
		}
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.tools > 0 && len(list.Tools) != tc.tools || len(list.Tools) == 0 {
			t.Errorf("%s: %d tools listed, want %d", tc.domain, len(list.Tools), tc.tools)
		}
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: list.Tools[0].Name, Arguments: map[string]any{"no_such_argument": 1}})
		if err != nil || !res.IsError {
			t.Errorf("%s: a call with a bad argument: %v, %+v", tc.domain, err, res)
		}
		cs.Close()
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("%s: synth mcp returned %v after the client left", tc.domain, err)
		}
	}
}

func TestMCPFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"mcp"}, 2, "--domain is required"},
		{[]string{"mcp", "--domain", "retail", "extra"}, 2, "unexpected argument"},
		{[]string{"mcp", "--domain", "nowhere"}, 1, "not a built-in domain"},
		{[]string{"mcp", "--domain", "retail", "--index", "-1"}, 1, "index"},
		{[]string{"mcp", "--domain", "retail", "--user", "robot"}, 1, "--user"},
		{[]string{"mcp", "--domain", "retail", "--config", "/nonexistent.yaml"}, 1, "--config"},
	} {
		code, stdout, stderr := synth(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d mentioning %q and nothing on stdout (the protocol's)", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}
	if code, stdout, _ := synth(t, "mcp", "-h"); code != 0 || !strings.Contains(stdout, "synth://episode") || !strings.Contains(stdout, "--index") {
		t.Errorf("synth mcp -h: exit %d, %q", code, stdout)
	}
}
