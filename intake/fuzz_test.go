package intake

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead: no input makes Read panic or hang, in any layout it detects.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"dialogues.jsonl", "tau2_results.json", "taubench.json", "tasks.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, name == "dialogues.jsonl")
	}
	f.Add([]byte(`{"simulations": [{"messages": [{"role": "tool", "content": 5}]}]}`), false)
	f.Add([]byte("[{\"traj\": [{\"role\": \"assistant\", \"tool_calls\": [{\"function\": {\"arguments\": 7}}]}]}]"), false)
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) {
		name := "in.json"
		if jsonl {
			name = "in.jsonl"
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		n := 0
		_ = Read(context.Background(), path, Options{Tasks: map[string]*Truth{"1": {}}}, func(d Dialogue) error {
			n++
			if d.Err == nil {
				messages(d, "policy")
			}
			return nil
		})
	})
}
