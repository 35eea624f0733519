#!/usr/bin/env bash
# The regression guard CI prints after make test: rows per CPU-second
# (user+sys) and peak RSS of small runs of retail and airline. Nothing
# fails on a figure, since a shared machine's load moves it; a change
# that halves the speed shows in the next run's log. make bench gives
# the figures that can be quoted.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${BENCH_SHORT_N:-300}
go build -o bin/synth ./cmd/synth
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for domain in retail airline; do
  /usr/bin/time -f "%U %S %M" -o "$tmp/time" bin/synth run --domain "$domain" -n "$n" --seed 1 \
    --out "$tmp/$domain" --quiet >"$tmp/stdout"
  rows=$(grep -o '[0-9]* verified' "$tmp/stdout" | tr -dc 0-9)
  awk -v d="$domain" -v n="$n" -v rows="$rows" \
    '{printf "bench-short: %s -n %s: %.0f rows per CPU-second (%d rows, %.2f s user+sys), peak RSS %d MB\n", d, n, rows/($1+$2), rows, $1+$2, $3/1024}' "$tmp/time"
done
