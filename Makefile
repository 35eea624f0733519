# synth — the two commands a newcomer needs are `make demo` and `make test`.
GO ?= go
BIN := bin/synth
DEMO := out/demo
# Recipes pipe test output through a tag; a failure anywhere in a pipe
# fails the recipe.
SHELL := bash
.SHELLFLAGS := -eo pipefail -c
# tag prefixes each line of a parallel step's output with its name, so
# the lines of steps running at once can be told apart.
tag = 2>&1 | sed -u 's/^/$(1) | /'

.PHONY: all build demo setup test test-long vet test-go test-interop \
	interop-demo interop-dpo interop-airline interop-pack interop-numbers interop-v1 \
	test-mcp hostile hostile-short bench bench-short fuzz chaos clean

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

# What the tests need, installed or named first, in seconds
# (scripts/setup.sh says what).
setup:
	@scripts/setup.sh

# Every test that fits in minutes, the steps at once: go vet; the Go tests
# with -short (the long single-threaded data checks skip under -short and
# make test-long runs them), under the race detector in every package
# that shares memory between goroutines (RACE_PKGS: those importing sync,
# sync/atomic or x/sync; the detector makes a test about 3.5x slower, and
# the pipeline's tests drive the single-threaded packages from many
# workers under it); the DuckDB, chat-template, validate and report
# checks of demo releases; synth's MCP servers through the TypeScript
# SDK's client; and the short pass of the hostile inputs. The report's
# browser test keeps its screenshot as a test artifact.
test: setup
	@$(MAKE) --no-print-directory -j 4 vet test-go test-interop test-mcp hostile-short
	@echo "make test: every step passed"

# Every test and every hostile case, without the race detector and
# without -short, the long data checks included: CI runs it after make
# test.
test-long: setup build
	SYNTH_BIN=$(CURDIR)/$(BIN) $(GO) test -timeout 40m ./...

vet:
	$(GO) vet ./... $(call tag,vet)

PKGS_IMPORTS = $(GO) list -f '{{.ImportPath}} {{join .Imports " "}}' ./...
SHARED_MEMORY = / (sync|sync\/atomic|golang\.org\/x\/sync\/[a-z]+)( |$$)/
RACE_PKGS = $(shell $(PKGS_IMPORTS) | awk '$(SHARED_MEMORY) {print $$1}')
PLAIN_PKGS = $(shell $(PKGS_IMPORTS) | awk '!$(SHARED_MEMORY) {print $$1}')

test-go:
	mkdir -p out/test-artifacts
	SYNTH_REPORT_SCREENSHOT=$(CURDIR)/out/test-artifacts/report.png $(GO) test -race -short -timeout 30m $(RACE_PKGS) $(call tag,go)
	$(GO) test -short -timeout 30m $(PLAIN_PKGS) $(call tag,go)

# The interop checks, one target per demo release so that they run at
# once, then every row of them through every chat template.
test-interop: interop-demo interop-dpo interop-airline interop-pack interop-numbers interop-v1
	# Every row of the demo releases, loaded as datasets and TRL load it,
	# through every chat template (render_check.mjs says how), then the same
	# check on a synth 0.3 release, whose rows it must catch failing.
	node test/interop/render_check.mjs --synth $(BIN) $(DEMO) out/demo-dpo out/demo-airline out/demo-pack-release out/demo-numbers-release $(call tag,interop)
	node test/interop/render_check.mjs --synth $(BIN) --expect-fail export/testdata/v1/release $(call tag,interop)

# The demo release, and the README's DuckDB query on it.
interop-demo: demo
	node test/interop/duckdb_check.mjs $(DEMO) --readme README.md $(call tag,interop)
	$(BIN) validate $(DEMO) $(call tag,interop)

interop-dpo: build
	$(BIN) run --domain retail -n 150 --seed 2 --dpo --quiet --force --out out/demo-dpo $(call tag,interop)
	node test/interop/duckdb_check.mjs out/demo-dpo $(call tag,interop)
	$(BIN) validate out/demo-dpo $(call tag,interop)
	$(BIN) report out/demo-dpo -o out/demo-dpo-report.html --force $(call tag,interop)

interop-airline: build
	$(BIN) run --domain airline -n 150 --seed 3 --dpo --quiet --force --out out/demo-airline $(call tag,interop)
	node test/interop/duckdb_check.mjs out/demo-airline $(call tag,interop)
	$(BIN) validate out/demo-airline $(call tag,interop)

interop-pack: build
	rm -rf out/demo-pack out/demo-pack-release
	$(BIN) domain init out/demo-pack $(call tag,interop)
	$(BIN) domain validate out/demo-pack $(call tag,interop)
	$(BIN) run --domain out/demo-pack -n 100 --seed 4 --quiet --out out/demo-pack-release $(call tag,interop)
	node test/interop/duckdb_check.mjs out/demo-pack-release $(call tag,interop)
	$(BIN) validate out/demo-pack-release $(call tag,interop)

# A pack imported from a spec whose schemas hold numbers a trainer's JSON
# decoder would not read back as written (2^54-1, the int64 range, 0.3):
# its tool definitions must not carry them.
interop-numbers: build
	rm -rf out/demo-numbers out/demo-numbers-release
	$(BIN) domain import-openapi test/interop/testdata/numbers.yaml -o out/demo-numbers >/dev/null
	$(BIN) run --domain out/demo-numbers -n 40 --seed 5 --quiet --out out/demo-numbers-release $(call tag,interop)
	$(BIN) validate out/demo-numbers-release $(call tag,interop)

# Releases of format 1 (synth 0.3) still validate, report and export
# (merge refuses shard outputs of another synth version by its config
# fingerprint; the rows' rewrite it would do is TestReadsFormatV1).
interop-v1: build
	$(BIN) validate export/testdata/v1/release $(call tag,interop)
	$(BIN) stats export/testdata/v1/release >/dev/null
	$(BIN) report export/testdata/v1/release -o out/v1-report.html --force $(call tag,interop)
	rm -rf out/v1-export
	$(BIN) export export/testdata/v1/release --format openai -o out/v1-export >/dev/null

# synth mcp (stdio) and synth serve's /mcp (streamable HTTP) through the
# official TypeScript SDK's client: tools listed, calls, bad calls, reset
# and score.
test-mcp: build
	SYNTH_BIN=$(CURDIR)/$(BIN) node --test test/mcp/mcp_check.mjs $(call tag,mcp)

# Hostile inputs against the built binary (test/hostile/cases_test.go):
# each case's exit status and message, nothing outside what it may write
# changed, no secret of the environment in any output. make test runs the
# cases marked short.
hostile: build
	SYNTH_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -v ./test/hostile

hostile-short: build
	SYNTH_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -short ./test/hostile $(call tag,hostile)

# Benchmarks: throughput, memory and component speed. Figures are medians
# over -count runs; compare with benchstat.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 3 ./...
	./scripts/bench-run.sh

# CI's regression guard: rows per CPU-second of small retail and airline
# runs, printed and never judged (under a minute).
bench-short:
	./scripts/bench-short.sh

# Kill synth run with SIGKILL 5 times at -n 20000, resume, compare with an
# uninterrupted run (a shorter version runs inside make test-long).
chaos:
	./scripts/chaos.sh 20000 5 1000

# A short fuzzing pass over every parser of outside input.
fuzz:
	./scripts/fuzz.sh 20s

clean:
	rm -rf bin out
