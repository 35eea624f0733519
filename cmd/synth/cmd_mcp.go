package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/mcp"
	"github.com/synth-data/synth/serve"
)

const mcpUsage = `usage: synth mcp --domain NAME|DIR [--seed S] [--index I] [flags]

Serves a domain's tools over MCP on stdin and stdout, on a fresh episode
of blueprint I of synth run --domain D --seed S: tools/list gives the
domain's tools as its rows carry them, tools/call answers as synth's own
dialogues do. The prompt "reset" starts a fresh episode (arguments index,
seed), "say" gives the agent's words to the customer and returns the
answer, and the resource synth://episode holds the dialogue with its
verdict and rewards once it has ended. Logs go to stderr. See docs/rl.md.

Flags:`

// cmdMCP serves one episode of a domain over MCP on stdio until the
// client goes or ctx ends.
func cmdMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	opts := serve.Defaults()
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, mcpUsage)
		fs.PrintDefaults()
	}
	domain := fs.String("domain", "", "the domain: a built-in's name ("+strings.Join(domains.Names(), ", ")+") or a pack folder")
	seed := fs.Uint64("seed", opts.Config.Seed, "run seed: the episode is the task synth run --seed S makes")
	index := fs.Int("index", 0, "the blueprint's index in that run (0 is the first)")
	env := envFlags(fs, &opts, "log the MCP session to stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errUsage
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "synth mcp: unexpected argument %q (flags come as --name value)\n", fs.Arg(0))
		return errUsage
	case *domain == "":
		fmt.Fprintln(stderr, "synth mcp: --domain is required: a built-in domain's name or a pack folder")
		return errUsage
	}
	start := serve.ResetRequest{Domain: *domain, Seed: seed, Index: index}
	if isPack(*domain) {
		// The pack the user named is the one folder a reset may load.
		abs, err := filepath.Abs(*domain)
		if err != nil {
			return fmt.Errorf("--domain %s: %w", *domain, err)
		}
		opts.Root, start.Domain = abs, abs
	} else {
		opts.Root = ""
	}
	srv, closeEnv, err := env(stderr)
	if err != nil {
		return err
	}
	defer closeEnv()
	s, err := mcp.New(ctx, srv, mcp.Options{Start: start, Version: version(), Logger: opts.Logger})
	if err != nil {
		return fmt.Errorf("--domain %s --seed %d --index %d: %w", *domain, *seed, *index, err)
	}
	err = s.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	return err
}

// nopWriteCloser leaves stdout open when the session closes its writer.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
