#!/usr/bin/env bash
# What the collector's settings cost: user+sys seconds and peak RSS of one
# synth run per setting, the settings alternating over $RUNS rounds. The
# figures behind the GOGC default (docs/performance.md, Memory by design).
#   scripts/bench-gc.sh [DOMAIN [N [SETTING...]]]
# A setting is environment assignments ("GOGC=400 GOMEMLIMIT=1GiB"), or
# "default" for synth's own.
set -euo pipefail
cd "$(dirname "$0")/.."
domain=${1:-retail}
n=${2:-5000}
shift $(($# < 2 ? $# : 2))
[ $# -gt 0 ] || set -- default GOGC=200 GOGC=400 "GOGC=400 GOMEMLIMIT=1GiB"
go build -o bin/synth ./cmd/synth
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for round in $(seq "${RUNS:-1}"); do
  for setting in "$@"; do
    vars=()
    [ "$setting" = default ] || read -ra vars <<<"$setting"
    rm -rf "$tmp/out"
    env "${vars[@]}" /usr/bin/time -f "%U %S %M" -o "$tmp/time" bin/synth run --domain "$domain" -n "$n" \
      --seed 3 --out "$tmp/out" --quiet >/dev/null
    awk -v s="$setting" -v d="$domain" -v n="$n" -v r="$round" \
      '{printf "%s -n %s, round %s, %s: %.2f s user+sys, peak RSS %d MB\n", d, n, r, s, $1+$2, $3/1024}' "$tmp/time"
  done
done
