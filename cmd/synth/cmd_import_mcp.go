package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/internal/termtext"
	"github.com/synth-data/synth/mcp"
	"github.com/synth-data/synth/openapi"
)

type importMCPOpts struct {
	out, command, name string
	seed               uint64
	timeout            time.Duration
}

func importMCPVerb(o *importMCPOpts) *verb {
	v := newVerb("domain import-mcp", "[TOOLS.json] -o DIR", "a saved tools/list result, or --command", 0, 1,
		"an MCP server's tools as a pack",
		"Makes a domain pack from an MCP server's tool list: a saved tools/list result ({\"tools\": [...]}), or the list a server started with --command answers over stdio (run as given, without a shell, and stopped once it has answered). The pack keeps every tool's name, description and input schema; IMPORT.md says what the import guessed (kinds, collections, keys, handlers) and every warning. See docs/mcp.md.")
	v.fs.StringVar(&o.out, "o", "", "folder for the pack, which must not exist or be empty (required)")
	v.meta["o"] = "DIR"
	v.fs.StringVar(&o.command, "command", "", "start this MCP server over stdio and list its tools: `CMD` (e.g. \"npx -y @modelcontextprotocol/server-memory\")")
	v.fs.StringVar(&o.name, "name", "", "pack `NAME` (default: from the server's name or the file's)")
	v.fs.Uint64Var(&o.seed, "seed", 1, "seed of the synthesized database")
	v.fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "give up on a --command server that has not listed its tools within this")
	return v
}

// cmdImportMCP turns an MCP server's tools into a runnable domain pack.
func cmdImportMCP(ctx context.Context, e env, args []string) error {
	var o importMCPOpts
	v := importMCPVerb(&o)
	files, err := v.parse(args, e.stdout)
	if err != nil {
		return err
	}
	stdout, stderr := termtext.Writer(e.stdout), e.stderr
	switch {
	case len(files) == 1 && o.command != "" || len(files) == 0 && o.command == "":
		return v.fail("give either a saved tools/list file or --command, not both")
	case o.out == "":
		return v.fail("-o DIR is required: the folder to write the pack to")
	case o.timeout <= 0:
		return v.fail("--timeout %v: need a positive duration (e.g. 30s)", o.timeout)
	}
	if entries, err := os.ReadDir(o.out); err == nil && len(entries) > 0 {
		return fmt.Errorf("-o %s: the directory exists and is not empty; give a new directory (nothing was run or written)", o.out)
	}
	l, src, err := listing(ctx, files, o.command, o.timeout)
	if err != nil {
		return err
	}
	title := l.Server
	if title == "" {
		title = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(src), ".json"), ".tools")
	}
	res, err := openapi.ImportTools(ctx, l.Tools, openapi.ToolsOptions{Name: o.name, Title: title, Version: l.Version, Source: src, Seed: o.seed})
	if err != nil {
		return err
	}
	if err := openapi.WriteDir(o.out, res.Files); err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	fmt.Fprintf(stdout, "imported %s into %s: %d tools (%d mapped to data, %d unmapped; see IMPORT.md), %d collections: %s; who talks to the agent: %s\n",
		src, o.out, res.Operations, res.Mapped, res.Operations-res.Mapped, len(res.Collections), strings.Join(res.Collections, ", "), res.Persona)
	fmt.Fprintf(stdout, "run it: synth run --domain %s -n 100 --out %s\n", o.out, releaseDir(o.out))
	return nil
}

// listing reads the tool list from the file or the server named.
func listing(ctx context.Context, files []string, command string, timeout time.Duration) (*mcp.Listing, string, error) {
	if command != "" {
		argv, err := mcp.SplitCommand(command)
		if err != nil {
			return nil, "", err
		}
		l, err := mcp.ListTools(ctx, argv, timeout)
		if err != nil {
			return nil, "", err
		}
		src := "the server " + command
		if l.Server != "" {
			src = l.Server + " (" + command + ")"
		}
		return l, src, nil
	}
	// A fifo or a device would block or never end: only a plain file is
	// a saved tool list.
	f, err := limitio.OpenNamed(files[0])
	if err != nil {
		return nil, "", fmt.Errorf("read the tool list: %w (give a saved tools/list result, a JSON file)", err)
	}
	defer f.Close()
	l, err := mcp.ReadTools(f, files[0])
	if err != nil {
		return nil, "", err
	}
	return l, filepath.Base(files[0]), nil
}
