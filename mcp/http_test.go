package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/synth-data/synth/mcp"
	"github.com/synth-data/synth/serve"
)

// serveHTTP serves env's API with MCP at /mcp, as synth serve does.
func serveHTTP(t testing.TB, env *serve.Server) string {
	t.Helper()
	env.Handle("/mcp", mcp.Handler(env, mcp.HTTPOptions{Version: "test", SessionTimeout: time.Minute, Seed: 1}))
	hs := httptest.NewServer(env.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

func connectHTTP(t testing.TB, url string) (*sdk.ClientSession, error) {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "synth-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// Over streamable HTTP each MCP session is its own episode, named by
// the URL that opened it: two clients replay the same dialogue, writes
// included, side by side, each on its own state, with the results the
// dialogue has; the episode is a session of synth serve's API too.
func TestHTTPSessions(t *testing.T) {
	_, dialogues := oracles(t, "retail", 4)
	base := serveHTTP(t, newEnv(t, nil))
	var sessions []*sdk.ClientSession
	for range 2 {
		cs, err := connectHTTP(t, base+"/mcp?domain=retail&seed=7")
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, cs)
	}
	for i, dl := range dialogues {
		for k, cs := range sessions {
			if _, _, err := replay(cs, i, dl.TR); err != nil {
				t.Fatalf("client %d, %s: %v", k, dl.BP.ID, err)
			}
		}
	}
	v, err := episode(sessions[0])
	if err != nil {
		t.Fatal(err)
	}
	var view serve.SessionView
	resp, err := http.Get(base + "/v1/sessions/" + v.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&view)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || view.BlueprintID != v.BlueprintID || len(view.Messages) != len(v.Messages) {
		t.Errorf("GET /v1/sessions/%s: %d %v: %s with %d messages; MCP's episode is %s with %d", v.SessionID, resp.StatusCode, err, view.BlueprintID, len(view.Messages), v.BlueprintID, len(v.Messages))
	}
}

// A URL that names no episode, or one the server cannot open, is
// refused before the session starts, naming the parameter; a full
// server answers 429; a closed session frees its place.
func TestHTTPRefusals(t *testing.T) {
	opts := serve.Defaults()
	opts.MaxSessions = 1
	env := newEnv(t, &opts)
	base := serveHTTP(t, env)
	for _, tc := range []struct{ query, want string }{
		{"", `"field":"domain"`},
		{"?domain=retail&turns=3", `"field":"turns"`},
		{"?domain=retail&seed=x", `"field":"seed"`},
		{"?domain=retail&index=-1", `"field":"index"`},
		{"?domain=nowhere", `"field":"domain"`},
		{"?domain=retail&release=x", `"field":"release"`},
	} {
		resp, err := http.Post(base+"/mcp"+tc.query, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(body), tc.want) {
			t.Errorf("/mcp%s: %d %s; want 400 naming %s", tc.query, resp.StatusCode, body, tc.want)
		}
	}
	cs, err := connectHTTP(t, base+"/mcp?domain=airline")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := connectHTTP(t, base+"/mcp?domain=retail"); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		t.Errorf("a second session on a server of one: %v; want 429", err)
	}
	cs.Close()
	for deadline := time.Now().Add(20 * time.Second); env.Sessions() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the closed MCP session still holds its episode")
		}
	}
	if _, err := connectHTTP(t, base+"/mcp?domain=retail"); err != nil {
		t.Errorf("after the first session closed: %v", err)
	}
}
