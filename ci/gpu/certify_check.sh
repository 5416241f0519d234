#!/usr/bin/env bash
# On the GPU machine, after ci/gpu/build.sh: certifies the CUDA backend on plan basic over every
# GPU (--devices all), verifies the bundle and prints what its manifest says of the GPUs (UUID,
# VBIOS, driver); then exports the smoke suite's golden set and runs the CUDA backend against it and
# against LibTorch's own references, comparing the verdicts. Usage: ci/gpu/certify_check.sh WORKDIR
set -uo pipefail
cd "$(dirname "$0")/../.."
opcert=build/gpu/harness/cli/opcert
work=${1:-/tmp/opcert-certify-check}
rm -rf "$work" && mkdir -p "$work"
echo "== certify --backend cuda --plan basic --devices all"
"$opcert" certify --backend cuda --plan basic --devices all --out "$work/bundle" 2>&1 | tail -5
echo "== verify"
"$opcert" verify "$work/bundle" 2>&1 | tail -3
python3 - "$work/bundle/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print("verdict:", m.get("verdict"), "results:", m.get("results"), "failing:", m.get("failing_results"))
for g in (m.get("machine", {}).get("gpus") or []):
    print("gpu:", {k: g.get(k) for k in ("index", "name", "uuid", "vbios_version", "driver_version", "memory_total_mib")})
print("devices:", json.dumps(m.get("devices"))[:400])
PY
echo "== golden export (smoke) and run --golden against run with LibTorch"
"$opcert" golden export --suite smoke --out "$work/golden" 2>&1 | tail -2
"$opcert" run --backend cuda --no-peer --progress plain --golden "$work/golden" --out "$work/golden-run" > "$work/golden-run.log" 2>&1
echo "golden run exit $?"; tail -2 "$work/golden-run.log"
"$opcert" run --backend cuda --no-peer --progress plain --out "$work/libtorch-run" > "$work/libtorch-run.log" 2>&1
echo "libtorch run exit $?"
python3 ci/compare_verdicts.py "$work/libtorch-run/report.json" "$work/golden-run/report.json" | tail -3
