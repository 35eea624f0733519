package blueprints

import (
	"fmt"
	"os"
	"testing"
)

// testTemp holds files the whole test binary shares (the scaffolded pack).
var testTemp string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "synth-blueprints-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	testTemp = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
