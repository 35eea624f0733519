# synth — the two commands a newcomer needs are `make demo` and `make test`.
GO ?= go
BIN := bin/synth
DEMO := out/demo

.PHONY: all build demo test test-go test-interop test-mcp hostile hostile-short bench fuzz chaos vet clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/synth

# The main job: a small run on the embedded engine, writing a release.
# The demo releases are this Makefile's own output: --force replaces one
# an older synth made (a new version refuses to resume it), and synth
# still refuses a folder holding files that are not its own.
demo: build
	$(BIN) run --domain retail -n 200 --seed 1 --force --out $(DEMO)
	$(BIN) stats $(DEMO)

# Every test: Go tests with the race detector, then the DuckDB interop
# check, synth validate and synth report on demo releases, then synth's
# MCP servers through the TypeScript SDK's client. Needs once:
# npm ci --prefix test/interop and npm ci --prefix test/mcp; for the
# browser test of the report also Debian's chromium and npm ci --prefix
# test/report (else it is skipped).
test: vet test-go test-interop test-mcp hostile-short

vet:
	$(GO) vet ./...

# Every test once as it is, then the race detector over every package
# with -short: it costs about 3.5x, so the long single-threaded data
# checks (they skip under -short) run only in the first pass. The
# report's browser test keeps its screenshot as a test artifact.
test-go:
	mkdir -p out/test-artifacts
	SYNTH_REPORT_SCREENSHOT=$(CURDIR)/out/test-artifacts/report.png $(GO) test -timeout 20m ./...
	$(GO) test -race -short -timeout 20m ./...

test-interop: demo
	@test -d test/interop/node_modules/@duckdb/node-api -a -d test/interop/node_modules/@huggingface/jinja || { echo "the interop checks' packages are missing: run npm ci --prefix test/interop"; exit 1; }
	node test/interop/duckdb_check.mjs $(DEMO)
	$(BIN) run --domain retail -n 150 --seed 2 --dpo --quiet --force --out out/demo-dpo
	node test/interop/duckdb_check.mjs out/demo-dpo
	$(BIN) validate $(DEMO)
	$(BIN) validate out/demo-dpo
	$(BIN) report out/demo-dpo -o out/demo-dpo-report.html
	$(BIN) run --domain airline -n 150 --seed 3 --dpo --quiet --force --out out/demo-airline
	node test/interop/duckdb_check.mjs out/demo-airline
	$(BIN) validate out/demo-airline
	rm -rf out/demo-pack out/demo-pack-release
	$(BIN) domain init out/demo-pack
	$(BIN) domain validate out/demo-pack
	$(BIN) run --domain out/demo-pack -n 100 --seed 4 --quiet --out out/demo-pack-release
	node test/interop/duckdb_check.mjs out/demo-pack-release
	$(BIN) validate out/demo-pack-release
	# A pack imported from a spec whose schemas hold numbers a trainer's
	# JSON decoder would not read back as written (2^54-1, the int64 range,
	# 0.3): its tool definitions must not carry them.
	rm -rf out/demo-numbers out/demo-numbers-release
	$(BIN) domain import-openapi test/interop/testdata/numbers.yaml -o out/demo-numbers >/dev/null
	$(BIN) run --domain out/demo-numbers -n 40 --seed 5 --quiet --out out/demo-numbers-release
	$(BIN) validate out/demo-numbers-release
	# Every row of the demo releases, loaded as datasets and TRL load it,
	# through every chat template (render_check.mjs says how), then the same
	# check on a synth 0.3 release, whose rows it must catch failing.
	node test/interop/render_check.mjs --synth $(BIN) $(DEMO) out/demo-dpo out/demo-airline out/demo-pack-release out/demo-numbers-release
	node test/interop/render_check.mjs --synth $(BIN) --expect-fail export/testdata/v1/release
	# Releases of format 1 (synth 0.3) still validate, report and export
	# (merge refuses shard outputs of another synth version by its config
	# fingerprint; the rows' rewrite it would do is TestReadsFormatV1).
	$(BIN) validate export/testdata/v1/release
	$(BIN) stats export/testdata/v1/release >/dev/null
	$(BIN) report export/testdata/v1/release -o out/v1-report.html
	rm -rf out/v1-export
	$(BIN) export export/testdata/v1/release --format openai -o out/v1-export >/dev/null

# synth mcp (stdio) and synth serve's /mcp (streamable HTTP) through the
# official TypeScript SDK's client (test/mcp/mcp_check.mjs says what it
# checks). The Go tests use test/mcp's server-memory for the live
# synth domain import-mcp test when it is installed.
test-mcp: build
	@test -d test/mcp/node_modules/@modelcontextprotocol/sdk || { echo "the MCP check's packages are missing: run npm ci --prefix test/mcp"; exit 1; }
	SYNTH_BIN=$(CURDIR)/$(BIN) node --test test/mcp/mcp_check.mjs

# Hostile inputs against the built binary (test/hostile/cases_test.go):
# each case's exit status and message, nothing outside what it may write
# changed, no secret of the environment in any output. make test runs the
# cases marked short.
hostile: build
	SYNTH_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -v ./test/hostile

hostile-short: build
	SYNTH_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -short ./test/hostile

# Benchmarks: throughput, memory and component speed. Figures are medians
# over -count runs; compare with benchstat.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 3 ./...
	./scripts/bench-run.sh

# Kill synth run with SIGKILL 5 times at -n 20000, resume, compare with an
# uninterrupted run (a shorter version runs inside make test).
chaos:
	./scripts/chaos.sh 20000 5 1000

# A short fuzzing pass over every parser of outside input.
fuzz:
	./scripts/fuzz.sh 20s

clean:
	rm -rf bin out
