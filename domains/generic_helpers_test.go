package domains_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/synth-data/synth/agent"
)

// testTemp holds files the whole test binary shares (the scaffolded pack).
var testTemp string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "synth-domains-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	testTemp = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func pipelineFlaws() []string { return agent.Flaws() }

func agentFlaw(kind string) agent.Flaw { return agent.Flaw{Kind: kind} }
