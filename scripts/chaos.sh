#!/usr/bin/env bash
# Chaos test: kill `synth run` with SIGKILL at random moments, resume each
# time, and compare the final release with an uninterrupted run, file by
# file. Usage: scripts/chaos.sh [N] [KILLS] [CHUNK]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000}
kills=${2:-5}
chunk=${3:-1000}
go build -o bin/synth ./cmd/synth
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(run -n "$n" --seed 7 --chunk-size "$chunk" --quiet)

start=$(date +%s.%N)
bin/synth "${args[@]}" --out "$tmp/ref" >/dev/null
ref_secs=$(echo "$(date +%s.%N) - $start" | bc)
echo "uninterrupted run: ${ref_secs}s"

for k in $(seq "$kills"); do
  bin/synth "${args[@]}" --out "$tmp/chaos" >/dev/null 2>&1 &
  pid=$!
  # A random moment within a slice of the run's length, so that every
  # kill lands before the resumed runs finish the remaining work.
  sleep "$(awk -v s="$ref_secs" -v k="$kills" -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.1 + (r / 32767) * s * 0.8 / k }')"
  if kill -9 "$pid" 2>/dev/null; then
    echo "kill $k: SIGKILL at a random moment"
  else
    echo "kill $k: the run had already finished"
  fi
  wait "$pid" 2>/dev/null || true
  # Nothing half-written may be visible under a final name.
  if find "$tmp/chaos" -path "$tmp/chaos/.synth-work" -prune -o -name '.*tmp*' -print | grep -q .; then
    echo "FAIL: temporary files visible outside the work dir" >&2
    exit 1
  fi
done
bin/synth "${args[@]}" --out "$tmp/chaos" >/dev/null
(cd "$tmp/ref" && find . -type f | sort | xargs sha256sum) >"$tmp/ref.sum"
(cd "$tmp/chaos" && find . -type f | sort | xargs sha256sum) >"$tmp/chaos.sum"
if diff -u "$tmp/ref.sum" "$tmp/chaos.sum"; then
  echo "PASS: release after $kills kills and resumes is byte-identical to the uninterrupted run ($(wc -l <"$tmp/ref.sum") files)"
else
  echo "FAIL: the resumed release differs" >&2
  exit 1
fi
