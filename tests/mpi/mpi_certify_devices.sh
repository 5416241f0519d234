#!/usr/bin/env bash
# `opcert certify --devices all` across 2 ranks under mpirun (docs/CERTIFY.md, "Devices and ranks"):
# the CPU backend split into 2 devices (OPCERT_CPU_DEVICES=2), so each rank of the node takes one;
# rank 0 writes the one bundle, `opcert verify` passes on it, the manifest lists both ranks' host
# and device, and the merged report holds every case once per device, tagged with rank and device.
# usage: mpi_certify_devices.sh MPIRUN OPCERT OUTDIR
set -uo pipefail
mpirun=$1 opcert=$2 out=$3 np=2
if [ -z "$mpirun" ]; then
  echo "skipped: no mpirun, or opcert built without MPI (OPCERT_WITH_MPI)"
  exit 77
fi
rm -rf "$out" "$out.log"
source "$(dirname "$0")/mpi_env.sh"

OPCERT_CPU_DEVICES=2 "${launch[@]}" --bind-to none -x OPCERT_CPU_DEVICES "$opcert" certify --backend cpu --plan basic \
  --devices all --out "$out" > "$out.log" 2>&1
rc=$?
cat "$out.log"
echo "certify: exit code $rc"
[ "$rc" = 0 ] || { echo "FAILED: certify exited $rc, expected 0 (certified)"; exit 1; }
"$opcert" verify "$out" || { echo "FAILED: verify refused the bundle"; exit 1; }

exec python3 - "$out" <<'PY'
import json, os, sys
from collections import Counter
out = sys.argv[1]
def fail(why):
    print("FAILED:", why)
    sys.exit(1)
manifest = json.load(open(os.path.join(out, "manifest.json")))
if manifest["verdict"] != "certified":
    fail(f"verdict {manifest['verdict']}: {manifest['reason']}")
devices = sorted((d.get("rank"), d["index"]) for d in manifest["devices"])
if devices != [(0, 0), (1, 1)]:
    fail(f"manifest devices {manifest['devices']}: expected rank 0 device 0 and rank 1 device 1")
if any(not d["host"] or not d["name"].startswith("host CPU, core") for d in manifest["devices"]):
    fail(f"manifest devices lack a host or a partition's name: {manifest['devices']}")
report = json.load(open(os.path.join(out, manifest["suites"][0]["report"])))
if report.get("ranks", {}).get("count") != 2:
    fail(f"report ranks {report.get('ranks')}: expected a count of 2")
cpu = [r for r in report["results"] if r["backend"] == "cpu"]
if not cpu:
    fail("no result of cpu")
untagged = [r for r in cpu if "device" not in r or "rank" not in r]
if untagged:
    fail(f"{len(untagged)} cpu result(s) without rank or device, e.g. {untagged[0]['case']}")
places = Counter((r["case"], r["impl"]) for r in cpu)
once_each = Counter((r["case"], r["impl"], r["rank"], r["device"]["index"]) for r in cpu)
if any(n != 2 for n in places.values()) or any(n != 1 for n in once_each.values()):
    fail("not every case ran once on each rank's device")
if {(r["rank"], r["device"]["index"]) for r in cpu} != {(0, 0), (1, 1)}:
    fail("the results are not from rank 0 device 0 and rank 1 device 1")
if not any(r["alignment_ratio"] is not None for r in cpu if r["rank"] == 1) and report["peer"]:
    fail("rank 1's results have no alignment figure against rank 0's peer")
logs = os.path.join(out, os.path.dirname(manifest["suites"][0]["report"]), "logs", "rank1")
if not os.path.isfile(os.path.join(logs, "cpu.device1.worker.log")):
    fail(f"rank 1's worker log is not in {logs}")
print(f"ok: {len(cpu)} cpu results, {len(places)} cases on 2 ranks' devices, one bundle, verified")
PY
