#!/usr/bin/env bash
# make setup: everything make test needs on a fresh machine that has Go
# and Node, installed here or named in the first seconds, before any long
# step. Safe to run again: what is in place is left as it is.
#
#   the tools       Go as go.mod asks, Node 20 or later, npm
#   Go modules      go mod download
#   npm packages    test/interop, test/report and test/mcp (the MCP SDK's
#                   TypeScript client, a reference server), as their lock files pin
#                   them (npm ci), again only when a lock file changed
#   Chromium        Debian's, for the report's browser test, where it can
#                   be installed (as root with apt-get; SYNTH_NO_APT=1
#                   never tries); elsewhere that one test is skipped
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "setup: $*" >&2
  exit 1
}

# version_ge A B: is version A at least B (1.26.1 >= 1.26)?
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

go_want=$(awk '$1 == "go" {print $2; exit}' go.mod)
command -v go >/dev/null || fail "Go is not installed: install Go $go_want or later (https://go.dev/dl/) and put it on PATH"
go_have=$(go env GOVERSION | sed 's/^go//')
version_ge "$go_have" "$go_want" || fail "Go $go_have is older than the Go $go_want go.mod needs: install Go $go_want or later (https://go.dev/dl/)"
command -v node >/dev/null || fail "Node.js is not installed: install Node.js 20 or later (https://nodejs.org/); the interop checks run on it"
node_have=$(node --version | sed 's/^v//')
version_ge "$node_have" 20 || fail "Node.js $node_have is older than 20: install Node.js 20 or later (https://nodejs.org/)"
command -v npm >/dev/null || fail "npm is not installed: it comes with Node.js (https://nodejs.org/)"

go mod download || fail "go mod download failed: the Go modules could not be fetched (is the network or GOPROXY reachable?)"

for dir in test/interop test/report test/mcp; do
  stamp="$dir/node_modules/.package-lock.json"
  if [ ! -f "$stamp" ] || [ "$dir/package-lock.json" -nt "$stamp" ]; then
    echo "setup: npm ci --prefix $dir"
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error ||
      fail "npm ci --prefix $dir failed: the npm packages its package-lock.json pins could not be installed (is the npm registry reachable?)"
  fi
done

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && [ "${SYNTH_NO_APT:-0}" != 1 ]; then
    echo "setup: apt-get install chromium (for the report's browser test)"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; then
      echo "setup: chromium could not be installed: the report's browser test will be skipped" >&2
    fi
  else
    echo "setup: /usr/bin/chromium is missing, so the report's browser test will be skipped (install Debian's chromium: sudo apt-get install chromium)" >&2
  fi
fi
echo "setup: ready (Go $go_have, Node $node_have)"
