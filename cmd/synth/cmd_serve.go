package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/mcp"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/serve"
)

// envOpts are the flags of an environment's episodes, which synth serve
// and synth mcp share: the run config, the customer, the turn bound and
// the log level.
type envOpts struct {
	serve.Options
	config   string
	maxTurns int
	verbose  bool
}

// envFlags adds the episode flags to v; verbose says what -v logs.
func envFlags(v *verb, o *envOpts, verbose string) {
	o.Options = serve.Defaults()
	v.fs.StringVar(&o.config, "config", "", "run config `FILE` (synth run --config): the controls and --tools of blueprints reset by seed and index, max_turns, max_tool_errors, and the llm endpoint of --user llm")
	v.fs.StringVar(&o.User, "user", o.User, "the customer: `U` is embedded (the rule-based user) or llm (the config's user role)")
	v.fs.IntVar(&o.maxTurns, "max-turns", 0, "customer turns per session (default: the config's max_turns, 60)")
	v.fs.BoolVar(&o.verbose, "v", false, verbose)
}

// environment makes the environment the flags describe, logging to
// stderr; the function it returns closes it.
func (o *envOpts) environment(stderr io.Writer) (*serve.Server, func(), error) {
	opts := o.Options
	if o.config != "" {
		if err := pipeline.LoadFile(o.config, &opts.Config); err != nil {
			return nil, nil, fmt.Errorf("--config: %w", err)
		}
	}
	if o.maxTurns != 0 {
		opts.Config.MaxTurns = o.maxTurns
	}
	if _, err := opts.Config.Spec(); err != nil {
		return nil, nil, fmt.Errorf("--config: %w", err)
	}
	closer := func() {}
	if opts.User == "llm" {
		c, err := llm.New(opts.Config.LLM.WithDefaults())
		if err != nil {
			return nil, nil, fmt.Errorf("--user llm: %w", err)
		}
		opts.Chatter, closer = c, func() { c.Close() }
	}
	level := slog.LevelWarn
	if o.verbose {
		level = slog.LevelInfo
	}
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	o.Options = opts
	srv, err := serve.New(opts)
	if err != nil {
		closer()
		return nil, nil, err
	}
	return srv, closer, nil
}

type serveOpts struct {
	envOpts
	addr, root string
}

func serveVerb(o *serveOpts) *verb {
	v := newVerb("serve", "", "", 0, 0, "an HTTP environment for multi-turn RL rollouts (MCP at /mcp)",
		"Endpoints, rewards and bounds: docs/serve.md; the MCP transport at /mcp: docs/rl.md. It stops on SIGINT or SIGTERM after the requests in flight.")
	envFlags(v, &o.envOpts, "log every session reaped")
	v.fs.StringVar(&o.addr, "addr", "127.0.0.1:8090", "address to listen on: `HOST:PORT` (port 0 picks a free one)")
	v.fs.StringVar(&o.root, "root", ".", "folder whose releases and domain packs requests may name (\"\": built-in domains only)")
	v.meta["root"] = "DIR"
	v.fs.IntVar(&o.MaxSessions, "max-sessions", o.MaxSessions, "sessions held at once; a reset beyond is answered 429 with Retry-After")
	v.fs.DurationVar(&o.IdleTimeout, "idle-timeout", o.IdleTimeout, "a session no request touched for this long ends")
	v.fs.IntVar(&o.MaxDomains, "max-domains", o.MaxDomains, "domains (domain and seed, or release) kept loaded")
	return v
}

// cmdServe serves the RL environment until ctx ends (SIGINT or SIGTERM).
func cmdServe(ctx context.Context, e env, args []string) error {
	var o serveOpts
	if _, err := serveVerb(&o).parse(args, e.stdout); err != nil {
		return err
	}
	o.Root = o.root
	srv, closeEnv, err := o.environment(e.stderr)
	if err != nil {
		return err
	}
	defer closeEnv()
	opts := o.Options
	srv.Handle("/mcp", mcp.Handler(srv, mcp.HTTPOptions{Version: version(), SessionTimeout: opts.IdleTimeout, Seed: opts.Config.Seed, Logger: opts.Logger}))
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", o.addr, err)
	}
	fmt.Fprintf(e.stdout, "synth serve: listening on http://%s (POST /v1/sessions, POST /v1/sessions/{id}/step; MCP at /mcp?domain=D&seed=S&index=I; customer %s, at most %d sessions)\n",
		ln.Addr(), opts.User, opts.MaxSessions)
	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "synth serve: stopped")
	return nil
}
