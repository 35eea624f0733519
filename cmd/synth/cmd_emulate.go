package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/synth-data/synth/emulate"
	"github.com/synth-data/synth/pipeline"
)

type emulateOpts struct {
	emulate.Options
	addr, flavor, config string
	verbose              bool
}

func emulateVerb(o *emulateOpts) *verb {
	d := emulate.DefaultOptions()
	o.Options = d
	v := newVerb("emulate", "", "", 0, 0, "an OpenAI-compatible server for tests and dry runs",
		"It plays a competent agent and a faithful customer for the blueprints synth sends it, needs no model and no network, and stops on SIGINT or SIGTERM (docs/llm.md).")
	v.fs.StringVar(&o.addr, "addr", "127.0.0.1:8089", "address to listen on: `HOST:PORT` (port 0 picks a free one)")
	v.fs.DurationVar(&o.Latency, "latency", d.Latency, "added to every response, like a model's generation time (e.g. 200ms)")
	v.fs.IntVar(&o.MaxConcurrency, "max-concurrency", d.MaxConcurrency, "requests served at once; the rest queue")
	v.fs.Float64Var(&o.ErrorRate, "error-rate", d.ErrorRate, "share of requests answered with a fault: 429, 500, slow, truncated or malformed JSON, unknown tool")
	v.fs.Float64Var(&o.MistakeRate, "mistake-rate", d.MistakeRate, "how often a role is played badly (flawed agent trials, instructions missing an entity, ...)")
	v.fs.Uint64Var(&o.Seed, "seed", d.Seed, "seed of the fault draws")
	v.fs.StringVar(&o.Domain, "domain", "", "domain pack `DIR`, for blueprints of a domain that is not built in")
	v.fs.StringVar(&o.flavor, "flavor", string(emulate.FlavorGeneric), "the server to answer like: `F` is generic, openai, vllm, sglang, ollama or llamacpp (reasoning field, refused fields, error bodies, tool-parser failures)")
	v.fs.BoolVar(&o.NoToolParser, "no-tool-parser", false, "answer as the flavor's server without tool calling (vLLM without --enable-auto-tool-choice, SGLang without --tool-call-parser, llama.cpp --no-jinja, an Ollama model without tools)")
	v.fs.BoolVar(&o.NoReasoningParser, "no-reasoning-parser", false, "answer as the flavor's server without a reasoning parser: thinking stays in the content as <think>…</think>")
	v.fs.Float64Var(&o.ToolParseRate, "tool-parse-failures", 0, "share of agent tool calls written so that they do not parse, reported as the flavor's parser reports them")
	v.fs.StringVar(&o.config, "config", "", "the run's config `FILE` (synth run --config): agent requests of tasks no customer request introduced (--user embedded) are played from it")
	v.fs.BoolVar(&o.verbose, "v", false, "log every request")
	return v
}

// cmdEmulate serves the OpenAI-compatible emulator until ctx ends
// (SIGINT or SIGTERM).
func cmdEmulate(ctx context.Context, e env, args []string) error {
	var o emulateOpts
	if _, err := emulateVerb(&o).parse(args, e.stdout); err != nil {
		return err
	}
	stdout, stderr, opts := e.stdout, e.stderr, o.Options
	f, err := emulate.ParseFlavor(o.flavor)
	if err != nil {
		return err
	}
	opts.Flavor = f
	level := slog.LevelInfo
	if o.verbose {
		level = slog.LevelDebug
	}
	if o.config != "" {
		cfg := pipeline.Defaults()
		if err := pipeline.LoadFileContext(ctx, o.config, &cfg); err != nil {
			return fmt.Errorf("--config: %w", err)
		}
		opts.Tasks = pipeline.Tasks(cfg)
	}
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	srv, err := emulate.New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", o.addr, err)
	}
	fmt.Fprintf(stdout, "synth emulate: listening on http://%s as %s (base URL http://%s/v1; metrics at /metrics)\n", ln.Addr(), f, ln.Addr())
	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "synth emulate: stopped")
	return nil
}
