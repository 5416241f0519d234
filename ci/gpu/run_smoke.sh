#!/usr/bin/env bash
# Builds opcert on the GPU machine (ci/gpu/build.sh) and runs a conformance suite on every
# available backend (the torch backend then runs on the GPU). Usage:
#   ci/gpu/run_smoke.sh [SUITE] [OUT_DIR]     # defaults: smoke, $OUT or out/gpu-smoke
set -euo pipefail
cd "$(dirname "$0")/../.."
suite=${1:-smoke}
out=${2:-${OUT:-out}/gpu-${suite//\//-}}
ci/gpu/build.sh
mkdir -p "$(dirname "$out")"
build/gpu/harness/cli/opcert list | head -20
rc=0
build/gpu/harness/cli/opcert run --suite "$suite" --out "$out" --progress plain > "$out.log" 2>&1 || rc=$?
grep -E "FAILED|ERROR|CRASHED|TIMEOUT" "$out.log" | head -30 || true
tail -25 "$out.log"
exit $rc
