package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/synth-data/synth/emulate"
	"github.com/synth-data/synth/pipeline"
)

// cmdEmulate serves the OpenAI-compatible emulator until ctx ends
// (SIGINT or SIGTERM).
func cmdEmulate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	d := emulate.DefaultOptions()
	opts := d
	fs := flag.NewFlagSet("emulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8089", "address to listen on (HOST:PORT; port 0 picks a free one)")
	fs.DurationVar(&opts.Latency, "latency", d.Latency, "added to every response, like a model's generation time (e.g. 200ms)")
	fs.IntVar(&opts.MaxConcurrency, "max-concurrency", d.MaxConcurrency, "requests served at once; the rest queue")
	fs.Float64Var(&opts.ErrorRate, "error-rate", d.ErrorRate, "share of requests answered with a fault: 429, 500, slow, truncated or malformed JSON, unknown tool")
	fs.Float64Var(&opts.MistakeRate, "mistake-rate", d.MistakeRate, "how often a role is played badly (flawed agent trials, instructions missing an entity, ...)")
	fs.Uint64Var(&opts.Seed, "seed", d.Seed, "seed of the fault draws")
	fs.StringVar(&opts.Domain, "domain", "", "domain pack directory, for blueprints of a domain that is not built in")
	flavor := fs.String("flavor", string(emulate.FlavorGeneric), "the server to answer like: generic, openai, vllm, sglang, ollama or llamacpp (reasoning field, refused fields, error bodies, tool-parser failures)")
	fs.BoolVar(&opts.NoToolParser, "no-tool-parser", false, "answer as the flavor's server without tool calling (vLLM without --enable-auto-tool-choice, SGLang without --tool-call-parser, llama.cpp --no-jinja, an Ollama model without tools)")
	fs.BoolVar(&opts.NoReasoningParser, "no-reasoning-parser", false, "answer as the flavor's server without a reasoning parser: thinking stays in the content as <think>…</think>")
	fs.Float64Var(&opts.ToolParseRate, "tool-parse-failures", 0, "share of agent tool calls written so that they do not parse, reported as the flavor's parser reports them")
	config := fs.String("config", "", "the run's config (synth run --config): agent requests of tasks no customer request introduced (--user embedded) are played from it")
	verbose := fs.Bool("v", false, "log every request")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "synth emulate: unexpected argument %q (flags come as --name value)\n", fs.Arg(0))
		return errUsage
	}
	f, err := emulate.ParseFlavor(*flavor)
	if err != nil {
		return err
	}
	opts.Flavor = f
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	if *config != "" {
		cfg := pipeline.Defaults()
		if err := pipeline.LoadFileContext(ctx, *config, &cfg); err != nil {
			return fmt.Errorf("--config: %w", err)
		}
		opts.Tasks = pipeline.Tasks(cfg)
	}
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	srv, err := emulate.New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", *addr, err)
	}
	fmt.Fprintf(stdout, "synth emulate: listening on http://%s as %s (base URL http://%s/v1; metrics at /metrics)\n", ln.Addr(), f, ln.Addr())
	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "synth emulate: stopped")
	return nil
}
