#!/usr/bin/env bash
# The CUDA backend's conformance on the GPU machine: build (ci/gpu/build.sh), then `opcert run
# --backend cuda` (torch the alignment peer) over the smoke, sweep and model suites. Usage:
#   ci/gpu/cuda_conformance.sh DEADLINE_S [SUITE...]   # default: every smoke, sweep and model suite
# A suite that would start past DEADLINE_S is listed as not started; one still running at
# DEADLINE_S + 60 s is stopped, so what finished still comes back. Into $OUT (the device tool
# returns at most 8 files): build.txt, conformance.txt (per suite: exit code, every case that did
# not pass, the totals, the worst alignment ratios) and reports.tar.gz (each suite's report.json,
# junit.xml and summary.md, worth keeping under docs/).
set -uo pipefail
cd "$(dirname "$0")/../.."
deadline=${1:?usage: ci/gpu/cuda_conformance.sh DEADLINE_S [SUITE...]}
shift
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(smoke sweeps/gemm sweeps/gemm_fp8 sweeps/gemm_int8 sweeps/quantize
  sweeps/attention sweeps/rms_norm sweeps/layer_norm sweeps/rope sweeps/softmax
  models/llama3-8b models/llama3-70b models/wan2.1-14b)
start=$(date +%s)
work=/tmp/opcert-cuda
rm -rf "$work" && mkdir -p "$work" "${OUT:=out}"
ci/gpu/build.sh > "$OUT/build.txt" 2>&1 || { cat "$OUT/build.txt"; exit 2; }
opcert=build/gpu/harness/cli/opcert
"$opcert" list 2>&1 | grep -E '^ *cuda|unavailable' -A1 | head -20 >> "$OUT/build.txt"
summary="$OUT/conformance.txt"
: > "$summary"
for suite in "${suites[@]}"; do
  name=${suite//\//-}
  elapsed=$(( $(date +%s) - start ))
  if [ "$elapsed" -ge "$deadline" ]; then echo "== $suite not started, ${elapsed}s elapsed" >> "$summary"; continue; fi
  t0=$(date +%s)
  timeout $(( deadline + 60 - elapsed )) "$opcert" run --backend cuda --suite "$suite" --out "$work/$name" \
    --progress plain > "$work/$name.log" 2>&1
  rc=$?
  echo "== $suite rc=$rc in $(( $(date +%s) - t0 ))s" >> "$summary"
  grep -E " (FAILED|ERROR|CRASHED|TIMEOUT|SKIPPED|MISTRUSTED) " "$work/$name.log" | grep -v '(peer)' | head -40 >> "$summary"
  grep -E "^cuda +all ops|^torch +all ops" "$work/$name.log" >> "$summary"
  [ -f "$work/$name/report.json" ] && python3 ci/gpu/worst_alignment.py "$work/$name/report.json" 3 >> "$summary" 2>&1
done
(cd "$work" && tar czf "$OUT/reports.tar.gz" --exclude='*.jsonl' -- */report.json */junit.xml */summary.md 2>/dev/null)
cat "$summary"
exit 0
