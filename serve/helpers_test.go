package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/serve"
)

// oracle is a blueprint of a run and the embedded engine's dialogue of it.
type oracle struct {
	domain string
	seed   uint64
	index  int
	bp     *record.Blueprint
	tr     *record.Trajectory
	// from, when set, is the reset to the blueprint (a release's);
	// otherwise domain, seed and index.
	from *serve.ResetRequest
}

// oracles plays blueprints 0..n-1 of synth run --domain domain --seed
// seed with the embedded engine (the oracle agent, handed its Asks).
func oracles(t testing.TB, domain string, seed uint64, n int) []oracle {
	t.Helper()
	ctx := context.Background()
	d, err := domains.Load(domain, seed)
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.Defaults()
	cfg.Domain, cfg.Seed = domain, seed
	gen, err := pipeline.Generator(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]oracle, n)
	for i := range n {
		bp, err := gen.Generate(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := embedded.Simulate(ctx, d, bp, cfg.MaxTurns)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = oracle{domain: domain, seed: seed, index: i, bp: bp, tr: tr}
	}
	return out
}

// newServer serves opts (the defaults when nil) on an httptest server.
func newServer(t testing.TB, opts *serve.Options) (*serve.Server, *httptest.Server) {
	t.Helper()
	o := serve.Defaults()
	if opts != nil {
		o = *opts
	}
	s, err := serve.New(o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return s, hs
}

// call sends a JSON request and decodes the answer into out (when not
// nil); it returns the status.
func call(t testing.TB, c *http.Client, method, url string, body, out any) int {
	t.Helper()
	var r io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, url, resp.StatusCode, raw, err)
		}
	}
	return resp.StatusCode
}

// replay resets a session to o's blueprint and steps it with the
// assistant messages of msgs (o's dialogue, or a flawed one), checking
// that every observation is the message that followed in msgs. It
// returns the last step's answer and the sum of the steps' rewards.
func replay(c *http.Client, base string, o oracle, msgs []record.Message) (*serve.StepResponse, float64, error) {
	seed, index := o.seed, o.index
	from := serve.ResetRequest{Domain: o.domain, Seed: &seed, Index: &index}
	if o.from != nil {
		from = *o.from
	}
	var reset serve.ResetResponse
	if err := post(c, base+"/v1/sessions", from, &reset); err != nil {
		return nil, 0, err
	}
	defer func() {
		if req, err := http.NewRequest(http.MethodDelete, base+"/v1/sessions/"+reset.SessionID, nil); err == nil {
			if resp, err := c.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}()
	if reset.BlueprintID != o.bp.ID {
		return nil, 0, fmt.Errorf("reset to %s, want %s", reset.BlueprintID, o.bp.ID)
	}
	if len(msgs) < 2 || !sameMessages(reset.Messages, msgs[:2]) {
		return nil, 0, fmt.Errorf("%s: reset says %+v, the dialogue begins %+v", o.bp.ID, reset.Messages, msgs[:min(2, len(msgs))])
	}
	last := &serve.StepResponse{Step: reset.Step}
	sum := reset.Reward
	for i := 2; i < len(msgs); {
		if last.Done {
			// The environment ended the episode first: a flawed agent
			// that repeats a failing write meets its limit on failed
			// calls, which the embedded simulation has not.
			return nil, 0, &divergence{fmt.Sprintf("%s: done after message %d of %d", o.bp.ID, i, len(msgs))}
		}
		m := msgs[i]
		if m.Role != "assistant" {
			return nil, 0, fmt.Errorf("%s: message %d is %s, want the assistant's", o.bp.ID, i, m.Role)
		}
		var step serve.StepResponse
		if err := post(c, base+"/v1/sessions/"+reset.SessionID+"/step", map[string]any{"message": m}, &step); err != nil {
			return nil, 0, fmt.Errorf("%s message %d: %w", o.bp.ID, i, err)
		}
		i++
		j := i
		for j < len(msgs) && msgs[j].Role != "assistant" {
			j++
		}
		if !sameMessages(step.Assistant, []record.Message{m}) || !sameMessages(step.Observation, msgs[i:j]) {
			return nil, 0, &divergence{fmt.Sprintf("%s message %d: the environment answered %+v then %+v; the dialogue has %+v then %+v",
				o.bp.ID, i-1, step.Assistant, step.Observation, m, msgs[i:j])}
		}
		if len(step.Labels) != 1 || step.Labels[0].Message != i-1 {
			return nil, 0, fmt.Errorf("%s message %d: labels %+v, want the one of the message", o.bp.ID, i-1, step.Labels)
		}
		i = j
		last = &step
		sum += step.Reward
	}
	return last, sum, nil
}

func post(c *http.Client, url string, body, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	resp, err := c.Post(url, "application/json", bytes.NewReader(raw))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %d %s", url, resp.StatusCode, got)
	}
	return json.Unmarshal(got, out)
}

func sameMessages(a, b []record.Message) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return len(a) == len(b) && bytes.Equal(x, y)
}

// divergence is a replay whose environment answered otherwise than the
// dialogue replayed.
type divergence struct{ msg string }

func (d *divergence) Error() string { return d.msg }
