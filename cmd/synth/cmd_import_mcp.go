package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/synth-data/synth/mcp"
	"github.com/synth-data/synth/openapi"
)

const importMCPUsage = `usage: synth domain import-mcp (TOOLS.json | --command "CMD ARGS...") -o DIR [--name NAME] [--seed S] [--timeout D]

Makes a domain pack from an MCP server's tool list: a saved tools/list
result ({"tools": [...]}), or the list a server started with --command
answers over stdio (run as given, without a shell, and stopped once it
has answered). The pack keeps every tool's name, description and input
schema; IMPORT.md says what the import guessed (kinds, collections,
keys, handlers) and every warning. See docs/mcp.md.

Flags:`

// cmdImportMCP turns an MCP server's tools into a runnable domain pack.
func cmdImportMCP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("domain import-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, importMCPUsage)
		fs.PrintDefaults()
	}
	out := fs.String("o", "", "directory for the pack (must not exist or be empty)")
	command := fs.String("command", "", "start this MCP server over stdio and list its tools (e.g. \"npx -y @modelcontextprotocol/server-memory\")")
	name := fs.String("name", "", "pack name (default: from the server's name or the file's)")
	seed := fs.Uint64("seed", 1, "seed of the synthesized database")
	timeout := fs.Duration("timeout", 30*time.Second, "give up on a --command server that has not listed its tools within this")
	files, help, err := parseInterleaved(fs, args)
	if help {
		return nil
	}
	if err != nil {
		return errUsage
	}
	switch {
	case len(files) > 1 || len(files) == 1 && *command != "" || len(files) == 0 && *command == "":
		fmt.Fprintln(stderr, "give either a saved tools/list file or --command, not both\n"+strings.SplitN(importMCPUsage, "\n", 2)[0])
		return errUsage
	case *out == "":
		fmt.Fprintln(stderr, "-o DIR is required: the folder to write the pack to\n"+strings.SplitN(importMCPUsage, "\n", 2)[0])
		return errUsage
	case *timeout <= 0:
		return fmt.Errorf("--timeout %v: need a positive duration (e.g. 30s)", *timeout)
	}
	if entries, err := os.ReadDir(*out); err == nil && len(entries) > 0 {
		return fmt.Errorf("-o %s: the directory exists and is not empty; give a new directory (nothing was run or written)", *out)
	}
	l, src, err := listing(ctx, files, *command, *timeout)
	if err != nil {
		return err
	}
	title := l.Server
	if title == "" {
		title = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(src), ".json"), ".tools")
	}
	res, err := openapi.ImportTools(ctx, l.Tools, openapi.ToolsOptions{Name: *name, Title: title, Version: l.Version, Source: src, Seed: *seed})
	if err != nil {
		return err
	}
	if err := openapi.WriteDir(*out, res.Files); err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	fmt.Fprintf(stdout, "imported %s into %s: %d tools (%d mapped to data, %d unmapped; see IMPORT.md), %d collections: %s; who talks to the agent: %s\n",
		src, *out, res.Operations, res.Mapped, res.Operations-res.Mapped, len(res.Collections), strings.Join(res.Collections, ", "), res.Persona)
	fmt.Fprintf(stdout, "run it: synth run --domain %s -n 100 --out %s\n", *out, releaseDir(*out))
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
	f, err := os.Open(files[0])
	if err != nil {
		return nil, "", fmt.Errorf("read the tool list: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, "", fmt.Errorf("%s is not a regular file: give a saved tools/list result (JSON)", files[0])
	}
	l, err := mcp.ReadTools(f, files[0])
	if err != nil {
		return nil, "", err
	}
	return l, filepath.Base(files[0]), nil
}
