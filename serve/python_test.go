package serve_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/synth-data/synth/serve"
)

// The Python example (examples/serve/synth_env.py, a gymnasium-style
// env on urllib) runs against a live server: replaying an oracle
// dialogue it gets every step, the outcome reward 1 and the pass.
func TestPythonClient(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the Python client example is not run")
	}
	s, err := serve.New(serve.Defaults())
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
	t.Cleanup(func() {
		cancel()
		<-done
	})
	for _, o := range oracles(t, "retail", 7, 3) {
		raw, err := json.Marshal(o.tr.Messages)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "dialogue.json")
		if err := os.WriteFile(file, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		cctx, stop := context.WithTimeout(context.Background(), time.Minute)
		out, err := exec.CommandContext(cctx, py, "../examples/serve/synth_env.py", "--url", "http://"+ln.Addr().String(),
			"--domain", "retail", "--seed", "7", "--index", strconv.Itoa(o.index), "--replay", file).Output()
		stop()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				t.Fatalf("%s: %v\n%s", o.bp.ID, err, ee.Stderr)
			}
			t.Fatal(err)
		}
		var got struct {
			BlueprintID   string   `json:"blueprint_id"`
			Steps         int      `json:"steps"`
			Return        float64  `json:"return"`
			OutcomeReward *float64 `json:"outcome_reward"`
			Passed        bool     `json:"passed"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v: %s", o.bp.ID, err, out)
		}
		assistant := 0
		for _, m := range o.tr.Messages {
			if m.Role == "assistant" {
				assistant++
			}
		}
		if got.BlueprintID != o.bp.ID || got.Steps != assistant || !got.Passed || got.OutcomeReward == nil || *got.OutcomeReward != 1 || got.Return < 1 {
			t.Errorf("%s: the Python client reports %s", o.bp.ID, out)
		}
	}
}
