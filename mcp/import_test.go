package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/synth-data/synth/audit"
	"github.com/synth-data/synth/mcp"
	"github.com/synth-data/synth/openapi"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/pipeline"
)

// moduleRoot is the folder holding go.mod.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// sharedList reads a real server's saved tools/list from
// $SYNTH_MCP_LISTS or ../shared/mcp, skipping when absent.
func sharedList(t testing.TB, name string) *mcp.Listing {
	t.Helper()
	dir := os.Getenv("SYNTH_MCP_LISTS")
	if dir == "" {
		dir = filepath.Join(moduleRoot(t), "..", "shared", "mcp")
	}
	f, err := os.Open(filepath.Join(dir, name+".tools.json"))
	if err != nil {
		t.Skipf("real MCP tool lists not found in %s (they live outside the repo, in ../shared/mcp): %v", dir, err)
	}
	defer f.Close()
	l, err := mcp.ReadTools(f, name+".tools.json")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// importList imports a listing into a pack folder.
func importList(t testing.TB, name string, l *mcp.Listing) (*openapi.Result, string) {
	t.Helper()
	res, err := openapi.ImportTools(context.Background(), l.Tools, openapi.ToolsOptions{Title: name, Source: name + ".tools.json", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), name)
	if err := openapi.WriteDir(dir, res.Files); err != nil {
		t.Fatal(err)
	}
	return res, dir
}

// The reference servers' tool lists become packs that load, whose
// handlers read and write their database as the tools' names say, and
// on which synth run -n 50 makes a release synth validate passes.
func TestImportRealServers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		colls  []string
		kinds  map[string]string // tool -> handler kind, as IMPORT.md says
		calls  [][2]string       // tool, arguments: run in order, each must succeed
		expect [][2]string       // tool, arguments: must succeed and hold the text
		writes bool
	}{
		{name: "memory", colls: []string{"entities", "relations"},
			kinds: map[string]string{"create_entities": "create_each entities", "add_observations": "append_each entities", "delete_observations": "remove_each entities",
				"delete_entities": "delete_each entities", "delete_relations": "delete_matching relations", "read_graph": "all collections",
				"search_nodes": "search entities", "open_nodes": "get_each entities"},
			calls: [][2]string{
				{"create_entities", `{"entities": [{"name": "Ada", "entityType": "person", "observations": ["writes code"]}]}`},
				{"add_observations", `{"observations": [{"entityName": "Ada", "contents": ["likes tea"]}]}`},
				{"create_relations", `{"relations": [{"from": "Ada", "to": "Ada", "relationType": "knows"}]}`},
			},
			expect: [][2]string{{"open_nodes", `{"names": ["Ada"]}`}, {"search_nodes", `{"query": "tea"}`}}},
		{name: "filesystem", colls: []string{"files", "directories"}, writes: true,
			kinds: map[string]string{"read_file": "get files", "write_file": "update files", "create_directory": "create directories",
				"search_files": "search files", "read_multiple_files": "get_each files", "edit_file": "unmapped"},
			calls:  [][2]string{{"write_file", `{"path": "/notes/todo.txt", "content": "buy milk"}`}},
			expect: [][2]string{{"read_file", `{"path": "/notes/todo.txt"}`}, {"search_files", `{"path": "/", "pattern": "milk"}`}}},
		{name: "github", colls: []string{"issues", "pull_requests", "repositories"}, writes: true,
			kinds: map[string]string{"get_issue": "get issues", "update_issue": "update issues", "list_issues": "list issues",
				"create_issue": "create issues", "merge_pull_request": "update pull_requests", "search_repositories": "search repositories",
				"add_issue_comment": "create issue_comments"},
			calls:  [][2]string{{"create_issue", `{"owner": "octo", "repo": "hello", "title": "Crash on start"}`}},
			expect: [][2]string{{"search_issues", `{"q": "crash on start"}`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := sharedList(t, tc.name)
			res, dir := importList(t, tc.name, l)
			if res.Operations != len(l.Tools) {
				t.Errorf("%d tools imported of %d", res.Operations, len(l.Tools))
			}
			for _, c := range tc.colls {
				if !slices.Contains(res.Collections, c) {
					t.Errorf("collections %v lack %s", res.Collections, c)
				}
			}
			report := string(res.Files["IMPORT.md"])
			for tool, kind := range tc.kinds {
				if !strings.Contains(report, "| `"+tool+"` |") || !strings.Contains(reportRow(report, tool), kind) {
					t.Errorf("IMPORT.md row of %s: %q; want %q", tool, reportRow(report, tool), kind)
				}
			}
			checkToolsKept(t, l, res)
			ctx := context.Background()
			p, err := pack.LoadDir(ctx, dir, 1, pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := p.Base.NewState()
			for _, c := range append(slices.Clone(tc.calls), tc.expect...) {
				r := p.Tools.Call(ctx, st, c[0], c[1])
				if r.Err {
					t.Errorf("%s(%s): %s", c[0], c[1], r.Output)
				}
			}
			for _, c := range tc.expect {
				r := p.Tools.Call(ctx, st, c[0], c[1])
				if want := firstValue(tc.calls); !strings.Contains(strings.ToLower(r.Output), strings.ToLower(want)) {
					t.Errorf("%s(%s) after the writes: %.300s; want it to hold %q", c[0], c[1], r.Output, want)
				}
			}
			runAndValidate(t, dir, tc.writes)
		})
	}
}

// firstValue is a value the first write set, for the reads to find.
func firstValue(calls [][2]string) string {
	switch {
	case strings.Contains(calls[0][1], "Ada"):
		return "Ada"
	case strings.Contains(calls[0][1], "buy milk"):
		return "buy milk"
	}
	return "Crash on start"
}

// reportRow is the row of IMPORT.md's tools table for a tool.
func reportRow(report, tool string) string {
	for _, line := range strings.Split(report, "\n") {
		if strings.HasPrefix(line, "| `"+tool+"` |") {
			return line
		}
	}
	return ""
}

// checkToolsKept checks tools.json keeps every tool's name, description
// and input schema (less $schema), and marks the server's read-only
// tools read.
func checkToolsKept(t *testing.T, l *mcp.Listing, res *openapi.Result) {
	t.Helper()
	var list []struct {
		Function struct {
			Name, Description string
			Parameters        map[string]any
			Kind              string `json:"x-kind"`
		}
	}
	if err := json.Unmarshal(res.Files["tools.json"], &list); err != nil {
		t.Fatal(err)
	}
	for i, tool := range l.Tools {
		f := list[i].Function
		want := map[string]any{}
		for k, v := range tool.InputSchema {
			if k != "$schema" {
				want[k] = v
			}
		}
		wantRaw, _ := json.Marshal(want)
		gotRaw, _ := json.Marshal(f.Parameters)
		if f.Name != tool.Name || f.Description != tool.Description || string(gotRaw) != string(wantRaw) {
			t.Errorf("tools.json[%d] %s %q %s; the server lists %s %q %s", i, f.Name, f.Description, gotRaw, tool.Name, tool.Description, wantRaw)
		}
		if tool.ReadOnly != nil && *tool.ReadOnly != (f.Kind == "read") {
			t.Errorf("%s: readOnlyHint %v, kind %s", tool.Name, *tool.ReadOnly, f.Kind)
		}
	}
}

// runAndValidate runs synth run -n 50 on a pack and validates the
// release.
func runAndValidate(t *testing.T, dir string, writes bool) {
	t.Helper()
	cfg := pipeline.Defaults()
	cfg.Domain, cfg.N, cfg.Seed, cfg.Workers = dir, 50, 3, 2
	cfg.Out = filepath.Join(t.TempDir(), "release")
	res, err := pipeline.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatalf("synth run on the pack: %v", err)
	}
	m := res.Manifest
	if m.Counts.Verified < m.Counts.Blueprints*9/10 || m.Counts.SFTRows == 0 {
		t.Errorf("%d of %d dialogues verified (failures %v)", m.Counts.Verified, m.Counts.Blueprints, m.Failures)
	}
	if writes && len(m.Stats.Intents) == 0 {
		t.Errorf("no task writes: unused %v", m.UnusedWrites)
	}
	v, err := (audit.Validator{}).Validate(context.Background(), cfg.Out)
	if err != nil || !v.OK() {
		t.Errorf("synth validate: %v %+v", err, v.Defects)
	}
	t.Logf("%s: %d blueprints, %d verified, writes used %v, unused %v", filepath.Base(dir), m.Counts.Blueprints, m.Counts.Verified, m.Stats.Intents, m.UnusedWrites)
}

// Live: @modelcontextprotocol/server-memory, installed by npm ci in
// test/mcp, started over stdio, lists the tools its saved list has,
// and they import into a pack that runs and validates.
func TestImportLiveServer(t *testing.T) {
	root := moduleRoot(t)
	server := filepath.Join(root, "test", "mcp", "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(server); err != nil || serr != nil {
		if os.Getenv("SYNTH_REQUIRE_MCP") != "" {
			t.Fatalf("SYNTH_REQUIRE_MCP is set but node (%v) or %s (%v) is missing: run npm ci --prefix test/mcp", err, server, serr)
		}
		t.Skipf("node or the memory server is not installed (npm ci --prefix test/mcp): %v %v", err, serr)
	}
	// The server keeps its graph in a file: one of the test's own.
	t.Setenv("MEMORY_FILE_PATH", filepath.Join(t.TempDir(), "memory.jsonl"))
	l, err := mcp.ListTools(context.Background(), []string{node, server}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if l.Server == "" || len(l.Tools) == 0 {
		t.Fatalf("server %q listed %d tools", l.Server, len(l.Tools))
	}
	var names []string
	for _, tool := range l.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"create_entities", "add_observations", "read_graph", "search_nodes", "open_nodes"} {
		if !slices.Contains(names, want) {
			t.Errorf("the live server lists %v, without %s", names, want)
		}
	}
	res, dir := importList(t, "memory-live", l)
	checkToolsKept(t, l, res)
	runAndValidate(t, dir, false)
}
