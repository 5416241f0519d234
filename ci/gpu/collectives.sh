#!/usr/bin/env bash
# The collectives on the GPU machine, within one device call: builds opcert with MPI, NCCL and the
# torch backend's NCCL process group (ci/gpu/build.sh), then, each logged to $OUT: NCCL alone timed
# nccl-tests' way (the yardstick), the collective suites on the CUDA backend across one rank per GPU
# under mpirun, the hang fault (tests/mpi/cuda_collectives.sh), the collective bench of the CUDA
# backend against torch.distributed's NCCL (the peer), ctest -L gpu, and the collectives suite on
# torch's NCCL keys.
# Usage: ci/gpu/collectives.sh [DEADLINE_S [SUITE...]]   defaults: 540, collectives
#   OPCERT_COLL_BENCH_FILTER (default: every case) and OPCERT_COLL_BENCH_MAX (default 256M) narrow
#   the bench; its report.json (or, if it was stopped, its measurements.jsonl) comes back.
#   OPCERT_COLL_SKIP (a regex of step names, e.g. 'run|fault') leaves steps out. The NCCL probe
#   (NCCL alone, nccl-tests' way: the bench's yardstick) runs up to OPCERT_COLL_PROBE_MAX bytes (1 GiB).
#   ranks: every GPU (OPCERT_GPU_RANKS to choose); one GPU runs everything as one rank (a smoke
#   test: the hang then exercises the watchdog rather than NCCL's abort).
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0): the shared multi-GPU hosts require it.
# At most 8 files come back: steps.txt, the bench's records and one log per step (so one suite).
set -uo pipefail
cd "$(dirname "$0")/../.."
deadline=${1:-540}
shift $(( $# > 0 ? 1 : 0 ))
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(collectives)
export NCCL_NVLS_ENABLE=0
mkdir -p "${OUT:=out}"
work=/tmp/opcert-collectives
rm -rf "$work"
mkdir -p "$work"
summary="$OUT/steps.txt"
: > "$summary"
start=$(date +%s)
opcert=build/gpu/harness/cli/opcert
mpirun=$(command -v mpirun || true)
gpus=$(tests/mpi/visible_gpus.sh)
np=${OPCERT_GPU_RANKS:-${gpus:-0}}
echo "GPUs: ${gpus:-0}; ranks: $np; NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE" >> "$summary"
launch=("$mpirun" -np "$np" --allow-run-as-root --bind-to none -x NCCL_NVLS_ENABLE)
# MPI carries only the bootstrap and the results: loopback is enough (as in tests/mpi/).
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo

# step NAME COMMAND...: runs it with what is left of the deadline (plus 60 s), logged to $OUT/NAME.txt.
step() {
  local name=$1
  shift
  if [ -n "${OPCERT_COLL_SKIP:-}" ] && [[ $name =~ ${OPCERT_COLL_SKIP} ]]; then echo "$name: left out (OPCERT_COLL_SKIP)" >> "$summary"; return 0; fi
  local elapsed=$(( $(date +%s) - start ))
  if [ "$elapsed" -ge "$deadline" ]; then echo "$name: not started, ${elapsed}s elapsed" >> "$summary"; return 1; fi
  local t0
  t0=$(date +%s)
  timeout "$(( deadline + 60 - elapsed ))" "$@" > "$OUT/$name.txt" 2>&1
  local rc=$?
  echo "$name: rc=$rc in $(( $(date +%s) - t0 ))s" >> "$summary"
  return $rc
}


if [ "$np" -lt 1 ] || [ -z "$mpirun" ]; then
  echo "no GPU or no mpirun: nothing to run" >> "$summary"
  cat "$summary"
  exit 2
fi
step 01-build env OPCERT_GPU_TESTS=1 OPCERT_GPU_MPI=1 OPCERT_GPU_NCCL=1 OPCERT_GPU_TORCH_NCCL=1 ci/gpu/build.sh || { cat "$summary" "$OUT/01-build.txt"; exit 2; }
# The yardstick: NCCL alone, nccl-tests' way (ci/gpu/probes/nccl_busbw_probe.cu), on the same NCCL.
nccl_root=$(python3 -c 'import nvidia, os; print(os.path.join(os.path.dirname(nvidia.__path__[0]), "nvidia", "nccl"))')
probe_bin="$work/nccl_busbw_probe"
step 01b-nccl-probe bash -c "nvcc -O2 -std=c++17 -I'$nccl_root/include' -L'$nccl_root/lib' -Xlinker -rpath='$nccl_root/lib' \
  -lnccl -o '$probe_bin' ci/gpu/probes/nccl_busbw_probe.cu && '$probe_bin' 8 '${OPCERT_COLL_PROBE_MAX:-1073741824}' 20 5"
n=1
for suite in "${suites[@]}"; do
  n=$((n + 1))
  name="0$n-run-${suite//\//-}"
  # A case's whole time (inputs, reference, check) counts against --timeout: large suites need more.
  case_timeout=60
  [[ $suite == *large* ]] && case_timeout=300
  step "$name" "${launch[@]}" "$opcert" run --backend cuda --suite "$suite" --no-peer --out "$work/$name" \
    --progress plain --timeout "$case_timeout"
  [ -f "$work/$name/summary.md" ] && cat "$work/$name/summary.md" >> "$OUT/$name.txt"
done
step "0$((n + 1))-fault-hang" tests/mpi/cuda_collectives.sh hang "$mpirun" "$opcert" "$np" "$work/hang" 1
# torch is loaded but not selected, so it is the peer: each row's ratio is CUDA's busbw over torch's.
step "0$((n + 2))-bench" "${launch[@]}" "$opcert" bench --backend cuda --suite bench/collectives \
  --filter "${OPCERT_COLL_BENCH_FILTER:-}" --max-bytes "${OPCERT_COLL_BENCH_MAX:-256M}" --out "$work/bench"
# The records stream as the rows end, so a bench stopped at the deadline still brings back its rows.
for f in report.json measurements.jsonl; do
  [ -f "$work/bench/$f" ] && { cp "$work/bench/$f" "$OUT/bench-$f"; break; }
done
# The suite and the hang ran above with every GPU; ctest adds the rest (the exit fault on 2 GPUs).
step "0$((n + 3))-ctest-gpu" ctest --test-dir build/gpu -L gpu -E 'mpi\.cuda_collectives\.(pass|hang)' --output-on-failure
step "0$((n + 4))-run-torch-nccl" "${launch[@]}" "$opcert" run --backend torch --impl 'torch.*.nccl' \
  --suite collectives --out "$work/torch" --progress plain --timeout 60
[ -f "$work/torch/summary.md" ] && cat "$work/torch/summary.md" >> "$OUT/0$((n + 4))-run-torch-nccl.txt"
cat "$summary"
! grep -qE 'rc=[1-9]|not started' "$summary"
