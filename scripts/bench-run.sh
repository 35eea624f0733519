#!/usr/bin/env bash
# End-to-end figures for the README and issue notes: throughput of
# `synth run` at -n 20000 and peak RSS at two sizes. Each run is repeated
# and the median reported, since the machine is shared and noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/synth ./cmd/synth
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { # n runs [run flags...] -> "rows/s peakKB" per line
  local n=$1 runs=$2
  shift 2
  for i in $(seq "$runs"); do
    /usr/bin/time -f "%M" -o "$tmp/rss" ./bin/synth run -n "$n" --seed 1 --out "$tmp/r-$n-$i" --quiet "$@" >"$tmp/out"
    rate=$(grep -o '([0-9]* rows/s)' "$tmp/out" | tr -dc 0-9)
    echo "$rate $(cat "$tmp/rss")"
    rm -rf "$tmp/r-$n-$i"
  done
}
measure 20000 3 >"$tmp/m20k"
echo "synth run -n 20000: median $(cut -d' ' -f1 "$tmp/m20k" | median) rows/s, median peak RSS $(( $(cut -d' ' -f2 "$tmp/m20k" | median) / 1024 )) MB (3 runs)"
measure 5000 3 --domain airline >"$tmp/mair"
echo "synth run --domain airline -n 5000: median $(cut -d' ' -f1 "$tmp/mair" | median) rows/s (3 runs)"
./bin/synth domain init "$tmp/helpdesk" >/dev/null
measure 5000 3 --domain "$tmp/helpdesk" >"$tmp/mpack"
echo "synth run --domain (synth domain init pack) -n 5000: median $(cut -d' ' -f1 "$tmp/mpack" | median) rows/s (3 runs)"
if [ "${BENCH_LARGE:-0}" = 1 ]; then
  measure 100000 1 >"$tmp/m100k"
  echo "synth run -n 100000: $(cut -d' ' -f1 "$tmp/m100k") rows/s, peak RSS $(( $(cut -d' ' -f2 "$tmp/m100k") / 1024 )) MB"
fi
