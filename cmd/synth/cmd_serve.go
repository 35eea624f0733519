package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/serve"
)

// cmdServe serves the RL environment until ctx ends (SIGINT or SIGTERM).
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	opts := serve.Defaults()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8090", "address to listen on (HOST:PORT; port 0 picks a free one)")
	config := fs.String("config", "", "run config (synth run --config): the controls and --tools of blueprints reset by seed and index, max_turns, max_tool_errors, and the llm endpoint of --user llm")
	fs.StringVar(&opts.User, "user", opts.User, "the customer: embedded (the rule-based user) or llm (the config's user role)")
	root := fs.String("root", ".", "folder whose releases and domain packs requests may name (\"\": built-in domains only)")
	fs.IntVar(&opts.MaxSessions, "max-sessions", opts.MaxSessions, "sessions held at once; a reset beyond is answered 429 with Retry-After")
	maxTurns := fs.Int("max-turns", 0, "customer turns per session (default: the config's max_turns, 60)")
	fs.DurationVar(&opts.IdleTimeout, "idle-timeout", opts.IdleTimeout, "a session no request touched for this long ends")
	fs.IntVar(&opts.MaxDomains, "max-domains", opts.MaxDomains, "domains (domain and seed, or release) kept loaded")
	verbose := fs.Bool("v", false, "log every session reaped")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "synth serve: unexpected argument %q (flags come as --name value)\n", fs.Arg(0))
		return errUsage
	}
	opts.Root = *root
	if *config != "" {
		if err := pipeline.LoadFile(*config, &opts.Config); err != nil {
			return fmt.Errorf("--config: %w", err)
		}
	}
	if *maxTurns != 0 {
		opts.Config.MaxTurns = *maxTurns
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
	if *verbose {
		level = slog.LevelInfo
	}
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	srv, err := serve.New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", *addr, err)
	}
	fmt.Fprintf(stdout, "synth serve: listening on http://%s (POST /v1/sessions, POST /v1/sessions/{id}/step; customer %s, at most %d sessions)\n",
		ln.Addr(), opts.User, opts.MaxSessions)
	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "synth serve: stopped")
	return nil
}
