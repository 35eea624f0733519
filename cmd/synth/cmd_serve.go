package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/serve"
)

type serveOpts struct {
	serve.Options
	addr, config, root string
	maxTurns           int
	verbose            bool
}

func serveVerb(o *serveOpts) *verb {
	o.Options = serve.Defaults()
	v := newVerb("serve", "", "", 0, 0, "an HTTP environment for multi-turn RL rollouts",
		"Endpoints, rewards and bounds: docs/serve.md. It stops on SIGINT or SIGTERM after the requests in flight.")
	v.fs.StringVar(&o.addr, "addr", "127.0.0.1:8090", "address to listen on: `HOST:PORT` (port 0 picks a free one)")
	v.fs.StringVar(&o.config, "config", "", "run config `FILE` (synth run --config): the controls and --tools of blueprints reset by seed and index, max_turns, max_tool_errors, and the llm endpoint of --user llm")
	v.fs.StringVar(&o.User, "user", o.User, "the customer: `U` is embedded (the rule-based user) or llm (the config's user role)")
	v.fs.StringVar(&o.root, "root", ".", "folder whose releases and domain packs requests may name (\"\": built-in domains only)")
	v.meta["root"] = "DIR"
	v.fs.IntVar(&o.MaxSessions, "max-sessions", o.MaxSessions, "sessions held at once; a reset beyond is answered 429 with Retry-After")
	v.fs.IntVar(&o.maxTurns, "max-turns", 0, "customer turns per session (default: the config's max_turns, 60)")
	v.fs.DurationVar(&o.IdleTimeout, "idle-timeout", o.IdleTimeout, "a session no request touched for this long ends")
	v.fs.IntVar(&o.MaxDomains, "max-domains", o.MaxDomains, "domains (domain and seed, or release) kept loaded")
	v.fs.BoolVar(&o.verbose, "v", false, "log every session reaped")
	return v
}

// cmdServe serves the RL environment until ctx ends (SIGINT or SIGTERM).
func cmdServe(ctx context.Context, e env, args []string) error {
	var o serveOpts
	if _, err := serveVerb(&o).parse(args, e.stdout); err != nil {
		return err
	}
	stdout, stderr, opts := e.stdout, e.stderr, o.Options
	opts.Root = o.root
	if o.config != "" {
		if err := pipeline.LoadFile(o.config, &opts.Config); err != nil {
			return fmt.Errorf("--config: %w", err)
		}
	}
	if o.maxTurns != 0 {
		opts.Config.MaxTurns = o.maxTurns
	}
	if _, err := opts.Config.Spec(); err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	if opts.User == "llm" {
		c, err := llm.New(opts.Config.LLM.WithDefaults())
		if err != nil {
			return fmt.Errorf("--user llm: %w", err)
		}
		defer c.Close()
		opts.Chatter = c
	}
	level := slog.LevelWarn
	if o.verbose {
		level = slog.LevelInfo
	}
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	srv, err := serve.New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", o.addr, err)
	}
	fmt.Fprintf(stdout, "synth serve: listening on http://%s (POST /v1/sessions, POST /v1/sessions/{id}/step; customer %s, at most %d sessions)\n",
		ln.Addr(), opts.User, opts.MaxSessions)
	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "synth serve: stopped")
	return nil
}
