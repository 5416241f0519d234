#!/usr/bin/env bash
# Issue 21's checks on the GPU machine (docs/RELIABILITY.md), each logged to $OUT:
#   limits  the smoke suite on cuda and torch with the workers' memory limit at its default (the
#           host's available memory) and at --max-memory 4G: the same verdicts, and no worker log
#           that names the limit (a CUDA or LibTorch worker is not starved by RLIMIT_DATA)
#   asan    the CUDA backend's host code under ASan and UBSan (GCC's, -O1 -g1; LibTorch off): a golden
#           set of the smoke suite exported by the ordinary build, then `opcert run --backend cuda
#           --golden` on the sanitized build; any report ends the run with its trace in the log
# Usage: ci/gpu/reliability_check.sh STEP...   (after ci/gpu/build.sh)
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p "${OUT:=out}"
opcert=build/gpu/harness/cli/opcert
work=/tmp/opcert-reliability
mkdir -p "$work"

statuses() {  # "<status> <count>" of a report's non-peer results
  python3 -c 'import json,sys,collections
d=json.load(open(sys.argv[1])); c=collections.Counter(r["status"] for r in d["results"] if not r.get("peer"))
print(" ".join(f"{k} {v}" for k,v in sorted(c.items())))' "$1"
}

limits() {
  "$opcert" run --backend cuda,torch --suite smoke --progress plain --out "$work/default" >/dev/null 2>&1
  echo "default limit: exit $? $(statuses "$work/default/report.json")"
  "$opcert" run --backend cuda,torch --suite smoke --progress plain --max-memory 4G --out "$work/4g" >/dev/null 2>&1
  echo "--max-memory 4G: exit $? $(statuses "$work/4g/report.json")"
  echo "worker logs naming the limit: $(cat "$work"/default/logs/*.log "$work"/4g/logs/*.log 2>/dev/null | grep -c 'memory limit')"
  python3 - "$work/default/report.json" "$work/4g/report.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
key = lambda r: (r["backend"], r["impl"], r["case"])
va = {key(r): r["status"] for r in a["results"]}
vb = {key(r): r["status"] for r in b["results"]}
print("same verdicts under both limits:", va == vb, f"({len(va)} results)")
PY
}

asan() {
  local build=build/gpu-asan
  "$opcert" golden export --suite smoke --out "$work/golden" > "$OUT/asan-golden.log" 2>&1 || { echo "golden export failed"; return; }
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
    -DOPCERT_ENABLE_ASAN=ON -DOPCERT_WITH_TORCH=OFF -DOPCERT_WITH_MPI=OFF -DOPCERT_WITH_PYTHON=OFF \
    -DOPCERT_WITH_NCCL=OFF -DOPCERT_BUILD_TESTS=OFF -DOPCERT_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90a \
    > "$OUT/asan-configure.log" 2>&1 || { echo "configure failed"; tail -20 "$OUT/asan-configure.log"; return; }
  local t0=$(date +%s)
  cmake --build "$build" -j "$(nproc)" --target opcert > "$OUT/asan-build.log" 2>&1 \
    || { echo "build failed"; grep -E "error" -A3 "$OUT/asan-build.log" | head -40; return; }
  echo "sanitized build: $(( $(date +%s) - t0 )) s"
  # The CUDA driver maps memory where ASan's shadow gap would be; its leaks are not ours to judge.
  ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/harness/cli/opcert" run --backend cuda --no-peer --golden "$work/golden" --progress plain \
    --out "$work/asan" > "$OUT/asan-run.log" 2>&1
  echo "cuda under ASan and UBSan: exit $? $(statuses "$work/asan/report.json")"
  echo "sanitizer reports in the run's logs: $(cat "$OUT/asan-run.log" "$work"/asan/logs/*.log 2>/dev/null | grep -cE 'ERROR: AddressSanitizer|runtime error:')"
  cp "$work"/asan/logs/*.log "$OUT/" 2>/dev/null || true
}

for step in "$@"; do
  echo "== $step"
  "$step" 2>&1 | tee -a "$OUT/reliability.txt"
done
