#!/usr/bin/env bash
# Silence on correct code (docs/TOLERANCES.md, "Silence on correct code"): every shipped
# conformance suite on correct backends under several seeds; any FAILED or MISTRUSTED result is a
# false alarm of the tolerance model. Writes one run folder per suite and seed under OUT and
# prints the summary of silence_summary.py (also OUT/summary.md).
#
#   ci/silence/sweep.sh [--backends cpu,torch] [--seeds 1-10] [--suites "smoke sweeps/gemm ..."] [--out DIR]
#
# The collectives suite runs under mpirun with 2 ranks where Open MPI is installed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
opcert="${OPCERT_BIN:-$root/build/cuda/harness/cli/opcert}"
backends=cpu,torch
seeds=1-10
suites=""
out="$root/out/silence-$(date -u +%Y%m%dT%H%M%SZ)"
while [ $# -gt 0 ]; do
  case "$1" in
    --backends) backends="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --suites) suites="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "sweep.sh: unknown argument '$1'; see the header of $0" >&2; exit 2 ;;
  esac
done
[ -x "$opcert" ] || { echo "sweep.sh: no opcert at $opcert; build it (cmake --build build/cuda) or set OPCERT_BIN" >&2; exit 2; }
if [ -z "$suites" ]; then
  suites="smoke $(cd "$root/suites" && ls sweeps/*.json models/*.json | sed 's/\.json$//' | tr '\n' ' ') collectives"
fi
first=${seeds%-*}; last=${seeds#*-}
mkdir -p "$out"
for seed in $(seq "$first" "$last"); do
  for suite in $suites; do
    dir="$out/$(echo "$suite" | tr / -).seed$seed"
    if [ "$suite" = collectives ]; then
      command -v mpirun >/dev/null || { echo "sweep.sh: no mpirun; collectives skipped" >&2; continue; }
      mpirun -np 2 --oversubscribe --allow-run-as-root "$opcert" run --suite "$suite" --backend "$backends" \
        --seed "$seed" --out "$dir" --progress plain >"$dir.log" 2>&1
    else
      "$opcert" run --suite "$suite" --backend "$backends" --seed "$seed" --out "$dir" --progress plain >"$dir.log" 2>&1
    fi
    echo "seed $seed $suite: exit $?" >&2
  done
done
/usr/bin/python3 "$root/ci/silence/silence_summary.py" "$out" | tee "$out/summary.md"
