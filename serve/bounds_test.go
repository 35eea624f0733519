package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/serve"
)

type errorBody struct {
	Error struct {
		Message string `json:"message"`
		Field   string `json:"field"`
	} `json:"error"`
}

// Bad requests are answered with a JSON error naming the field at fault.
func TestRequestErrors(t *testing.T) {
	opts := serve.Defaults()
	opts.Root = t.TempDir()
	_, hs := newServer(t, &opts)
	seed, index := uint64(7), 0
	var reset serve.ResetResponse
	if err := post(http.DefaultClient, hs.URL+"/v1/sessions", serve.ResetRequest{Domain: "retail", Seed: &seed, Index: &index}, &reset); err != nil {
		t.Fatal(err)
	}
	step := hs.URL + "/v1/sessions/" + reset.SessionID + "/step"
	cases := []struct {
		name, method, url, body string
		code                    int
		field                   string
	}{
		{"not json", "POST", hs.URL + "/v1/sessions", `{"domain":`, 400, "body"},
		{"misspelt key", "POST", hs.URL + "/v1/sessions", `{"domian":"retail"}`, 400, "domian"},
		{"seed a string", "POST", hs.URL + "/v1/sessions", `{"domain":"retail","seed":"7","index":0}`, 400, "seed"},
		{"no seed", "POST", hs.URL + "/v1/sessions", `{"domain":"retail","index":0}`, 400, "seed"},
		{"no index", "POST", hs.URL + "/v1/sessions", `{"domain":"retail","seed":7}`, 400, "index"},
		{"negative index", "POST", hs.URL + "/v1/sessions", `{"domain":"retail","seed":7,"index":-1}`, 400, "index"},
		{"both sources", "POST", hs.URL + "/v1/sessions", `{"release":"r","blueprint_id":"x","domain":"retail"}`, 400, "release"},
		{"no blueprint id", "POST", hs.URL + "/v1/sessions", `{"release":"r"}`, 400, "blueprint_id"},
		{"release outside the root", "POST", hs.URL + "/v1/sessions", `{"release":"../x","blueprint_id":"b"}`, 400, "release"},
		{"not a release", "POST", hs.URL + "/v1/sessions", `{"release":"x","blueprint_id":"b"}`, 400, "release"},
		{"unknown domain", "POST", hs.URL + "/v1/sessions", `{"domain":"../nowhere","seed":7,"index":0}`, 400, "domain"},
		{"no message", "POST", step, `{}`, 400, "message"},
		{"user role", "POST", step, `{"message":{"role":"user","content":"hi"}}`, 400, "message.role"},
		{"call without a name", "POST", step, `{"message":{"role":"assistant","tool_calls":[{"id":"abcdefghi","type":"function","function":{"arguments":"{}"}}]}}`, 400, "message.tool_calls[0].function.name"},
		{"image part", "POST", step, `{"message":{"role":"assistant","content":[{"type":"image_url"}]}}`, 400, "message.content[0].type"},
		{"unknown session", "POST", hs.URL + "/v1/sessions/nope/step", `{"message":{"content":"hi"}}`, 404, "session_id"},
		{"unknown endpoint", "GET", hs.URL + "/v2/x", ``, 404, "path"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, tc.url, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e errorBody
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.code || e.Error.Field != tc.field || e.Error.Message == "" {
				t.Errorf("%d %+v, want %d naming %s", resp.StatusCode, e.Error, tc.code, tc.field)
			}
		})
	}
}

// A policy's message in any of the shapes servers send is taken: text
// parts, arguments as an object, extra fields; a tool error comes back
// as the "Error: …" observation, and an empty message ends the dialogue.
func TestStepShapes(t *testing.T) {
	_, hs := newServer(t, nil)
	seed, index := uint64(7), 0
	reset := func() string {
		var r serve.ResetResponse
		if err := post(http.DefaultClient, hs.URL+"/v1/sessions", serve.ResetRequest{Domain: "retail", Seed: &seed, Index: &index}, &r); err != nil {
			t.Fatal(err)
		}
		return hs.URL + "/v1/sessions/" + r.SessionID
	}
	s := reset()
	var st serve.StepResponse
	body := json.RawMessage(`{"message":{"role":"assistant","refusal":null,"content":"Let me look.","tool_calls":[{"id":"x","type":"function","function":{"name":"get_order_details","arguments":{"order_id":"#W0000000"}}}]}}`)
	if code := call(t, http.DefaultClient, "POST", s+"/step", body, &st); code != 200 {
		t.Fatalf("step: %d", code)
	}
	if len(st.Assistant) != 2 || st.Assistant[0].Content != "Let me look." || st.Assistant[1].ToolCalls[0].Function.Arguments != `{"order_id":"#W0000000"}` ||
		len(st.Assistant[1].ToolCalls[0].ID) != 9 {
		t.Errorf("recorded %+v: want the text, then the call with its arguments as text and a 9-alphanumeric id", st.Assistant)
	}
	if len(st.Observation) != 1 || !strings.HasPrefix(st.Observation[0].Content, "Error: ") || st.Observation[0].ToolCallID != st.Assistant[1].ToolCalls[0].ID {
		t.Errorf("observation %+v: want the tool's Error: answering the recorded id", st.Observation)
	}
	body = json.RawMessage(`{"message":{"content":[{"type":"text","text":"How can I help you today?"}]}}`)
	if code := call(t, http.DefaultClient, "POST", s+"/step", body, &st); code != 200 || len(st.Observation) != 1 || st.Observation[0].Role != "user" || st.Done {
		t.Errorf("text step: %d %+v", code, st)
	}
	var view serve.SessionView
	if code := call(t, http.DefaultClient, "GET", s, nil, &view); code != 200 || len(view.Messages) != 7 || len(view.Labels) != 3 || view.Done {
		t.Errorf("GET: %d, %d messages and %d turn labels, done %v; want the 7 so far and the labels of the 3 assistant messages", code, len(view.Messages), len(view.Labels), view.Done)
	}
	s = reset()
	if code := call(t, http.DefaultClient, "POST", s+"/step", json.RawMessage(`{"message":{"role":"assistant","content":null}}`), &st); code != 200 ||
		!st.Done || st.Guard != "empty_turn" || st.OutcomeReward == nil || *st.OutcomeReward != 0 {
		t.Errorf("empty message: %d done %v guard %q", code, st.Done, st.Guard)
	}
	var e errorBody
	if code := call(t, http.DefaultClient, "POST", s+"/step", json.RawMessage(`{"message":{"content":"hello"}}`), &e); code != 409 || e.Error.Field != "session_id" {
		t.Errorf("step after the end: %d %+v, want 409", code, e)
	}
}

// The server holds at most --max-sessions: one more reset is a 429 with
// Retry-After until a session is deleted; max_turns ends a dialogue.
func TestSessionBounds(t *testing.T) {
	opts := serve.Defaults()
	opts.MaxSessions = 2
	opts.Config.MaxTurns = 4
	_, hs := newServer(t, &opts)
	seed := uint64(7)
	var ids []string
	for i := range 3 {
		req, _ := json.Marshal(serve.ResetRequest{Domain: "retail", Seed: &seed, Index: &i})
		resp, err := http.Post(hs.URL+"/v1/sessions", "application/json", strings.NewReader(string(req)))
		if err != nil {
			t.Fatal(err)
		}
		var r serve.ResetResponse
		_ = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		switch {
		case i < 2 && resp.StatusCode != 201:
			t.Fatalf("reset %d: %d", i, resp.StatusCode)
		case i < 2:
			ids = append(ids, r.SessionID)
		case resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "":
			t.Fatalf("reset beyond the most: %d Retry-After %q, want 429 with one", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	var st serve.StepResponse
	steps := 0
	for ; steps < 10 && !st.Done; steps++ {
		if code := call(t, http.DefaultClient, "POST", hs.URL+"/v1/sessions/"+ids[0]+"/step", json.RawMessage(`{"message":{"content":"How can I help?"}}`), &st); code != 200 {
			t.Fatalf("step %d: %d", steps, code)
		}
	}
	if steps != 4 || st.Ending != "max_turns" || st.Verdict == nil || st.Verdict.Passed {
		t.Errorf("max_turns 4: done after %d steps, ending %q, verdict %v", steps, st.Ending, st.Verdict)
	}
	if code := call(t, http.DefaultClient, "DELETE", hs.URL+"/v1/sessions/"+ids[0], nil, nil); code != 200 {
		t.Fatalf("delete: %d", code)
	}
	var r serve.ResetResponse
	seed2, i := seed, 5
	if err := post(http.DefaultClient, hs.URL+"/v1/sessions", serve.ResetRequest{Domain: "retail", Seed: &seed2, Index: &i}, &r); err != nil {
		t.Errorf("reset after a delete: %v", err)
	}
}

// Sessions no request touches for the idle timeout end.
func TestIdleReaping(t *testing.T) {
	opts := serve.Defaults()
	opts.IdleTimeout = 50 * time.Millisecond
	s, err := serve.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	seed, index := uint64(7), 0
	var r serve.ResetResponse
	if err := post(http.DefaultClient, base+"/v1/sessions", serve.ResetRequest{Domain: "retail", Seed: &seed, Index: &index}, &r); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Sessions() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := s.Sessions(); n != 0 {
		t.Errorf("%d sessions left after the idle timeout", n)
	}
	if code := call(t, http.DefaultClient, "GET", base+"/v1/sessions/"+r.SessionID, nil, nil); code != 404 {
		t.Errorf("a reaped session answered %d, want 404", code)
	}
	// Shutdown on ctx: Serve returns nil.
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}

// Many sessions step at once, each in its own state: every one gets
// its oracle's dialogue (run with -race).
func TestConcurrentSessions(t *testing.T) {
	n := 24
	if testing.Short() {
		n = 8
	}
	os := oracles(t, "retail", 7, n)
	_, hs := newServer(t, nil)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for _, o := range os {
		wg.Go(func() {
			last, _, err := replay(http.DefaultClient, hs.URL, o, o.tr.Messages)
			if err == nil && (!last.Done || *last.OutcomeReward != 1) {
				err = fmt.Errorf("%s: outcome %v", o.bp.ID, *last.OutcomeReward)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// A session resets to a release's blueprint by id, and a policy
// replaying the release's rows gets each row's dialogue, reward 1 and
// the labels the row carries.
func TestResetFromRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("makes a release")
	}
	root := t.TempDir()
	cfg := pipeline.Defaults()
	cfg.Domain, cfg.Seed, cfg.N, cfg.Out, cfg.Workers = "retail", 7, 12, filepath.Join(root, "rel"), 1
	cfg.SetOption("recovery_share", 0)
	if _, err := pipeline.Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	opts := serve.Defaults()
	opts.Root = root
	_, hs := newServer(t, &opts)
	files, err := filepath.Glob(filepath.Join(root, "rel", "sft", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sft files: %v", err)
	}
	rows := 0
	for _, f := range files {
		got, err := export.ReadSFT(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range got {
			rows++
			o := oracle{bp: &record.Blueprint{ID: row.BlueprintID}, from: &serve.ResetRequest{Release: "rel", BlueprintID: row.BlueprintID}}
			last, _, err := replay(http.DefaultClient, hs.URL, o, row.Messages)
			if err != nil {
				t.Error(err)
				continue
			}
			var want credit.Labels
			if err := json.Unmarshal(row.Labels, &want); err != nil {
				t.Fatalf("%s labels: %v", row.ID, err)
			}
			if !last.Done || *last.OutcomeReward != 1 || !reflect.DeepEqual(&want, last.Dialogue) {
				t.Errorf("%s: done %v outcome %v; labels equal the row's: %v", row.ID, last.Done, *last.OutcomeReward, reflect.DeepEqual(&want, last.Dialogue))
			}
		}
	}
	if rows < 10 {
		t.Errorf("%d rows replayed of a 12-blueprint release", rows)
	}
	var e errorBody
	if code := call(t, http.DefaultClient, "POST", hs.URL+"/v1/sessions", serve.ResetRequest{Release: "rel", BlueprintID: "retail-x"}, &e); code != 400 || e.Error.Field != "blueprint_id" {
		t.Errorf("unknown id: %d %+v", code, e)
	}
	// A link under a root that leads out of it shares nothing: the
	// release is judged by where it really is.
	shared := t.TempDir()
	if err := os.Symlink(root, filepath.Join(shared, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	opts.Root = shared
	_, hs = newServer(t, &opts)
	e = errorBody{}
	if code := call(t, http.DefaultClient, "POST", hs.URL+"/v1/sessions", serve.ResetRequest{Release: "elsewhere/rel", BlueprintID: files[0]}, &e); code != 400 || !strings.Contains(e.Error.Message, "is outside the served root") {
		t.Errorf("a release through a link out of the root: %d %+v", code, e)
	}
}
