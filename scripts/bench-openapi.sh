#!/usr/bin/env bash
# Figures for the OpenAPI importer: import time at 1k, 5k and 20k
# generated operations, and `synth run` on the real specs in
# ../shared/openapi (or $SYNTH_OPENAPI_SPECS): rows/s as synth reports it
# and rows per CPU-second (steadier on a shared machine), median of
# $RUNS runs at -n $N. BEFORE=path/to/old/synth measures another build
# on the same packs' specs for comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-1000}
RUNS=${RUNS:-3}
specs=${SYNTH_OPENAPI_SPECS:-../shared/openapi}
go build -o bin/synth ./cmd/synth
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "== import time (generated specs, 5 operations per resource)"
go test ./openapi -run '^$' -bench ImportScale -benchtime 1x -count 1 | grep -E '^Benchmark' |
  awk '{printf "  %s: %.2f s\n", $1, $3/1e9}'

[ -d "$specs" ] || { echo "no real specs at $specs; skipped the runs"; exit 0; }
echo "== synth run -n $N on the real specs (median of $RUNS)"
for bin in ${BEFORE:-} bin/synth; do
  echo "-- $bin"
  for spec in petstore-3.0.yaml museum-3.1.yaml twilio-verify-v2-3.0.json discord-3.1.json digitalocean-multifile/specification/DigitalOcean-public.v2.yaml; do
    name=$(basename "$spec"); name=${name%%.*}
    pack="$tmp/$(basename "$bin")-$name"
    if ! "$bin" domain import-openapi "$specs/$spec" -o "$pack" >/dev/null 2>"$tmp/err"; then
      echo "  $name: import fails: $(tail -1 "$tmp/err" | cut -c1-120)"; continue
    fi
    : >"$tmp/rates"; : >"$tmp/cpu"
    for i in $(seq "$RUNS"); do
      rm -rf "$tmp/r"
      if ! /usr/bin/time -f "%U %S" -o "$tmp/time" "$bin" run --domain "$pack" -n "$N" --seed 1 --out "$tmp/r" --quiet >"$tmp/out" 2>"$tmp/err"; then
        echo "  $name: run fails: $(grep -v '^Command' "$tmp/err" | tail -1 | cut -c1-160)"; continue 2
      fi
      grep -o '([0-9]* rows/s)' "$tmp/out" | tr -dc 0-9 >>"$tmp/rates"; echo >>"$tmp/rates"
      rows=$(grep -o '[0-9]* SFT rows' "$tmp/out" | tr -dc 0-9)
      awk -v r="$rows" '{printf "%.0f\n", r/($1+$2)}' "$tmp/time" >>"$tmp/cpu"
    done
    echo "  $name: $(median <"$tmp/rates") rows/s, $(median <"$tmp/cpu") rows per CPU-second"
  done
done
