#!/usr/bin/env bash
# End-to-end figures for the README and issue notes (the second half of
# `make bench`). For each built-in domain (retail, airline, and τ²-bench's
# airline imported with `synth domain import-tau2`), synth run's verified
# rows per CPU-second (user+sys, steadier than wall time on a shared
# machine) and peak RSS, beside a pinned older synth built from
# $BENCH_BASE (default 7330665, the 0.3 release), as ratios; the median
# of $RUNS runs, the two binaries alternating. Then where this synth's
# CPU goes, stage by stage, from a CPU profile of one run per domain; and
# peak RSS at two sizes, which stays flat as -n grows.
#
# BENCH_N_RETAIL, BENCH_N_AIRLINE, BENCH_N_TAU2 set the sizes;
# BENCH_SIZES the -n of the memory check; SYNTH_TAU2 where τ²-bench's
# data is (default ../shared/tau2; absent: that domain is skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${BENCH_BASE:-7330665}
runs=${RUNS:-3}
tau2=${SYNTH_TAU2:-../shared/tau2}
sizes=${BENCH_SIZES:-5000 20000}
go build -o bin/synth ./cmd/synth
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/base-src"
git archive "$base" | tar -x -C "$tmp/base-src"
(cd "$tmp/base-src" && go build -o "$tmp/synth-base" ./cmd/synth)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# once BIN DOMAIN N [flags...] -> "rows cpu_seconds peak_kb" of one run
once() {
  local bin=$1 domain=$2 n=$3
  shift 3
  rm -rf "$tmp/out"
  /usr/bin/time -f "%U %S %M" -o "$tmp/time" "$bin" run --domain "$domain" -n "$n" --seed 1 \
    --out "$tmp/out" --quiet "$@" >"$tmp/stdout"
  local rows
  rows=$(grep -o '[0-9]* verified' "$tmp/stdout" | tr -dc 0-9)
  awk -v rows="$rows" '{printf "%s %.2f %s\n", rows, $1+$2, $3}' "$tmp/time"
}

# compare NAME DOMAIN N BASE_DOMAIN: the table row of one domain
compare() {
  local name=$1 domain=$2 n=$3 based=$4
  : >"$tmp/new"
  : >"$tmp/old"
  for _ in $(seq "$runs"); do
    [ -n "$based" ] && once "$tmp/synth-base" "$based" "$n" >>"$tmp/old"
    once bin/synth "$domain" "$n" >>"$tmp/new"
  done
  local rate rss
  rate=$(awk '{print $1/$2}' "$tmp/new" | median)
  rss=$(cut -d' ' -f3 "$tmp/new" | median)
  if [ -z "$based" ]; then
    printf "| %s -n %s | %.0f | — | — | %d MB | — |\n" "$name" "$n" "$rate" $((rss / 1024))
    return
  fi
  local orate orss
  orate=$(awk '{print $1/$2}' "$tmp/old" | median)
  orss=$(cut -d' ' -f3 "$tmp/old" | median)
  printf "| %s -n %s | %.0f | %.0f | %.2f× | %d MB / %d MB | %.2f× |\n" "$name" "$n" "$rate" "$orate" \
    "$(echo "$rate $orate" | awk '{print $1/$2}')" $((rss / 1024)) $((orss / 1024)) \
    "$(echo "$rss $orss" | awk '{print $1/$2}')"
}

# secs VALUE: pprof's "1.5s", "250ms" or "80us" in seconds
secs() { awk -v v="$1" 'BEGIN {if (v ~ /ms$/) print v/1000; else if (v ~ /us$/) print v/1e6; else print v+0}'; }

# cum TOP FUNC: the seconds of the samples under FUNC (0 when none)
cum() {
  local v
  v=$(awk -v f="$2" '$NF == f {print $4; exit}' "$1")
  secs "${v:-0}"
}

# stages NAME DOMAIN N: CPU milliseconds per 1,000 rows by stage
stages() {
  local name=$1 domain=$2 n=$3 p=github.com/synth-data/synth
  rm -rf "$tmp/out"
  bin/synth run --domain "$domain" -n "$n" --seed 1 --out "$tmp/out" --quiet --cpuprofile "$tmp/cpu" >/dev/null
  go tool pprof -top -cum -nodecount=1000000 bin/synth "$tmp/cpu" 2>/dev/null >"$tmp/top"
  echo "$name" "$n" \
    "$(secs "$(grep -o 'Total samples = [0-9.]*[mu]\?s' "$tmp/top" | cut -d' ' -f4)")" \
    "$(cum "$tmp/top" "$p/blueprints.(*Generic).Generate")" \
    "$(cum "$tmp/top" "$p/engine/embedded.(*Engine).Dialogue")" \
    "$(cum "$tmp/top" "$p/verify.(*Verifier).Verify")" \
    "$(cum "$tmp/top" "$p/credit.LabelDomain")" \
    "$(cum "$tmp/top" "$p/pipeline.(*chunkSink).put")" \
    "$(cum "$tmp/top" "$p/domains.Load")" \
    "$(cum "$tmp/top" runtime.gcBgMarkWorker)" "$(cum "$tmp/top" runtime.bgsweep)" "$(cum "$tmp/top" runtime.bgscavenge)" |
    awk '{
      k = 1e6 / $2; gc = $10 + $11 + $12
      printf "| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", $1, $3*k, $4*k, ($5-$6)*k, $6*k, $7*k, $8*k, $9*k, gc*k, ($3-$4-$5-$7-$8-$9-gc)*k
    }'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "this synth: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with uncommitted changes)'); base: $base; median of $runs runs each, alternating"
echo
echo "| run | rows per CPU-second | base's | ratio | peak RSS, this / base | RSS ratio |"
echo "|---|---|---|---|---|---|"
compare retail retail "${BENCH_N_RETAIL:-5000}" retail
compare airline airline "${BENCH_N_AIRLINE:-1500}" airline
if [ -d "$tau2/airline" ]; then
  bin/synth domain import-tau2 "$tau2/airline" -o "$tmp/tau2-airline" >/dev/null
  # The base predates import-tau2: no side by side for this one.
  compare "τ² airline (import-tau2)" "$tmp/tau2-airline" "${BENCH_N_TAU2:-1500}" ""
fi

echo
echo "CPU milliseconds per 1,000 rows, by stage (one profiled run; simulation is the dialogue without its verification; other: the rows' JSON and dedup signatures, dedup, the release's files)"
echo
echo "| domain | total | generation | simulation | verification | labels | export | loading | GC | other |"
echo "|---|---|---|---|---|---|---|---|---|---|"
stages retail retail "${BENCH_N_RETAIL:-5000}"
stages airline airline "${BENCH_N_AIRLINE:-1500}"
[ -d "$tmp/tau2-airline" ] && stages "τ²-airline" "$tmp/tau2-airline" "${BENCH_N_TAU2:-1500}"

echo
echo "peak RSS of synth run (retail, default settings) by -n: flat when memory does not grow with the run"
for n in $sizes; do
  r=$(once bin/synth retail "$n")
  echo "  -n $n: $(($(echo "$r" | cut -d' ' -f3) / 1024)) MB, $(echo "$r" | awk '{printf "%.0f", $1/$2}') rows per CPU-second"
done
