package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/mcp"
	"github.com/synth-data/synth/serve"
)

type mcpOpts struct {
	envOpts
	domain string
	seed   uint64
	index  int
}

func mcpVerb(o *mcpOpts) *verb {
	v := newVerb("mcp", "", "", 0, 0, "a domain's tools as an MCP server on stdio (an RL episode)",
		"Serves a domain's tools over MCP on stdin and stdout, on a fresh episode of blueprint I of synth run --domain D --seed S: tools/list gives the domain's tools as its rows carry them, tools/call answers as synth's own dialogues do.\n\nThe prompt \"reset\" starts a fresh episode (arguments index, seed), \"say\" gives the agent's words to the customer and returns the answer, and the resource synth://episode holds the dialogue with its verdict and rewards once it has ended. Logs go to stderr. See docs/rl.md.")
	envFlags(v, &o.envOpts, "log the MCP session to stderr")
	v.fs.StringVar(&o.domain, "domain", "", "the domain: a built-in's name ("+strings.Join(domains.Names(), ", ")+") or a pack folder (required)")
	v.meta["domain"] = "NAME|DIR"
	v.fs.Uint64Var(&o.seed, "seed", o.Config.Seed, "run seed: the episode is the task synth run --seed S makes")
	v.fs.IntVar(&o.index, "index", 0, "the blueprint's index in that run (0 is the first)")
	return v
}

// cmdMCP serves one episode of a domain over MCP on stdio until the
// client goes or ctx ends.
func cmdMCP(ctx context.Context, e env, args []string) error {
	var o mcpOpts
	v := mcpVerb(&o)
	if _, err := v.parse(args, e.stdout); err != nil {
		return err
	}
	if o.domain == "" {
		return v.fail("--domain is required: a built-in domain's name or a pack folder")
	}
	domain, seed, index := &o.domain, &o.seed, &o.index
	start := serve.ResetRequest{Domain: *domain, Seed: seed, Index: index}
	if isPack(*domain) {
		// The pack the user named is the one folder a reset may load.
		abs, err := filepath.Abs(*domain)
		if err != nil {
			return fmt.Errorf("--domain %s: %w", *domain, err)
		}
		o.Root, start.Domain = abs, abs
	} else {
		o.Root = ""
	}
	srv, closeEnv, err := o.environment(e.stderr)
	if err != nil {
		return err
	}
	defer closeEnv()
	s, err := mcp.New(ctx, srv, mcp.Options{Start: start, Version: version(), Logger: o.Logger})
	if err != nil {
		return fmt.Errorf("--domain %s --seed %d --index %d: %w", *domain, *seed, *index, err)
	}
	err = s.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	return err
}

// nopWriteCloser leaves stdout open when the session closes its writer.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
