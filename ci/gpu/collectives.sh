#!/usr/bin/env bash
# The CUDA backend's collectives on the GPU machine, within one device call: builds opcert with MPI
# and NCCL (ci/gpu/build.sh), runs the collective suites across one rank per GPU under mpirun,
# the hang fault (tests/mpi/cuda_collectives.sh) and ctest -L gpu, each logged to $OUT.
# Usage: ci/gpu/collectives.sh [DEADLINE_S [SUITE...]]   defaults: 540, collectives
#   ranks: every GPU (OPCERT_GPU_RANKS to choose); one GPU runs everything as one rank (a smoke
#   test: the hang then exercises the watchdog rather than NCCL's abort).
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0): the shared multi-GPU hosts require it.
# At most 7 files come back: steps.txt and one log per step (so at most 3 suites).
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
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
np=${OPCERT_GPU_RANKS:-${gpus:-0}}
echo "GPUs: ${gpus:-0}; ranks: $np; NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE" >> "$summary"
launch=("$mpirun" -np "$np" --allow-run-as-root --bind-to none -x NCCL_NVLS_ENABLE)
# MPI carries only the bootstrap and the results: loopback is enough (as in tests/mpi/).
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo

# step NAME COMMAND...: runs it with what is left of the deadline (plus 60 s), logged to $OUT/NAME.txt.
step() {
  local name=$1
  shift
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
step 01-build env OPCERT_GPU_TESTS=1 OPCERT_GPU_MPI=1 OPCERT_GPU_NCCL=1 ci/gpu/build.sh || { cat "$summary" "$OUT/01-build.txt"; exit 2; }
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
# The suite and the hang ran above with every GPU; ctest adds the rest (the exit fault on 2 GPUs).
step "0$((n + 2))-ctest-gpu" ctest --test-dir build/gpu -L gpu -E 'mpi\.cuda_collectives\.(pass|hang)' --output-on-failure
cat "$summary"
! grep -qE 'rc=[1-9]|not started' "$summary"
