package audit

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestZZTiming(t *testing.T) {
	s := newState("/tmp/rel2k-sft", 0)
	ctx := context.Background()
	t0 := time.Now()
	raw, _ := readFileForTest("/tmp/rel2k-sft/manifest.json")
	s.doc, _ = parseManifest(raw)
	t.Log("manifest", time.Since(t0)); t0 = time.Now()
	s.loadDomain()
	t.Log("domain", time.Since(t0)); t0 = time.Now()
	s.checkFiles(ctx)
	t.Log("files", time.Since(t0)); t0 = time.Now()
	s.checkUnlisted(); s.checkDomain()
	t.Log("unlisted+domain", time.Since(t0)); t0 = time.Now()
	s.readBlueprints(); s.readFailures(); s.readRejected()
	t.Log("read jsonl", time.Since(t0)); t0 = time.Now()
	s.checkSFTFiles(ctx)
	t.Log("sft", time.Since(t0)); t0 = time.Now()
	s.checkDPOFiles(ctx)
	t.Log("dpo", time.Since(t0)); t0 = time.Now()
	s.checkCounts(); s.checkCoverage(); s.checkInstructions(); s.checkFirstMessages()
	t.Log("rest", time.Since(t0))
}

func readFileForTest(p string) ([]byte, error) { return os.ReadFile(p) }
