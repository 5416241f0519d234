#!/usr/bin/env bash
# The 2-GPU (any-GPU) collective table of docs/PERFORMANCE.md within one device call: builds opcert
# with MPI, NCCL and the torch backend's NCCL process group, runs NCCL alone timed nccl-tests' way
# (ci/gpu/probes/nccl_busbw_probe.cu, the yardstick), then opcert bench of bench/collectives, the
# CUDA backend against torch.distributed's NCCL (the peer) in the same run, in two sweeps: the
# latency end (--min-bytes 8 up to 512K, x4) and the bandwidth end (1M up to 1G, x4); then, time
# permitting, ctest -L gpu. Each report.json and log comes back under $OUT; ci/gpu/collective_table.py
# prints the table from them.
# Usage: ci/gpu/collective_table.sh [DEADLINE_S]   (default 480)
#   OPCERT_TABLE_SWEEPS (default "latency:8:512K bandwidth:1M:1G") names each sweep NAME:MIN:MAX (x4
#   steps); OPCERT_TABLE_FILTER narrows the cases (a --filter regex); OPCERT_TABLE_ITERS (default
#   100) and OPCERT_TABLE_WARMUP (default 10) the timed and warm-up collectives per size.
#   OPCERT_TABLE_SKIP (a regex of step names, e.g. 'ctest|torch|probe') leaves steps out, so that
#   the table can be made over several device calls. ctest -L gpu runs on every GPU and then on one
#   (CUDA_VISIBLE_DEVICES=0: the tests must pass on any count); the torch backend's collectives
#   suite on every rank runs last (its NCCL keys still pass).
set -uo pipefail
cd "$(dirname "$0")/../.."
deadline=${1:-480}
export NCCL_NVLS_ENABLE=0 NCCL_DEBUG=${NCCL_DEBUG:-WARN}
mkdir -p "${OUT:=out}"
work=/tmp/opcert-collective-table
rm -rf "$work" && mkdir -p "$work"
start=$(date +%s)
summary="$OUT/steps.txt"
: > "$summary"
gpus=$(tests/mpi/visible_gpus.sh)
np=${OPCERT_GPU_RANKS:-${gpus:-0}}
echo "GPUs: ${gpus:-0}; ranks: $np; NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE" >> "$summary"
[ "$np" -ge 1 ] || { cat "$summary"; exit 2; }
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
launch=(mpirun -np "$np" --allow-run-as-root --bind-to none -x NCCL_NVLS_ENABLE -x NCCL_DEBUG)
opcert=build/gpu/harness/cli/opcert
step() {
  local name=$1
  shift
  if [ -n "${OPCERT_TABLE_SKIP:-}" ] && [[ $name =~ ${OPCERT_TABLE_SKIP} ]]; then echo "$name: left out (OPCERT_TABLE_SKIP)" >> "$summary"; return 0; fi
  local elapsed=$(( $(date +%s) - start ))
  if [ "$elapsed" -ge "$deadline" ]; then echo "$name: not started, ${elapsed}s elapsed" >> "$summary"; return 1; fi
  local t0=$(date +%s)
  timeout "$(( deadline + 60 - elapsed ))" "$@" > "$OUT/$name.txt" 2>&1
  local rc=$?
  echo "$name: rc=$rc in $(( $(date +%s) - t0 ))s" >> "$summary"
  return $rc
}
step build env OPCERT_GPU_TESTS=1 OPCERT_GPU_MPI=1 OPCERT_GPU_NCCL=1 OPCERT_GPU_TORCH_NCCL=1 ci/gpu/build.sh \
  || { cat "$summary" "$OUT/build.txt"; exit 2; }
nccl_root=$(python3 -c 'import nvidia, os; print(os.path.join(os.path.dirname(nvidia.__path__[0]), "nvidia", "nccl"))')
step probe bash -c "nvcc -O2 -std=c++17 -I'$nccl_root/include' -L'$nccl_root/lib' -Xlinker -rpath='$nccl_root/lib' \
  -lnccl -o '$work/probe' ci/gpu/probes/nccl_busbw_probe.cu && '$work/probe' 8 1073741824 ${OPCERT_TABLE_ITERS:-100} ${OPCERT_TABLE_WARMUP:-10}"
sweep() {  # NAME MIN MAX
  step "bench-$1" "${launch[@]}" "$opcert" bench --backend cuda --suite bench/collectives --min-bytes "$2" \
    --max-bytes "$3" --step-factor 4 --iters "${OPCERT_TABLE_ITERS:-100}" --warmup "${OPCERT_TABLE_WARMUP:-10}" \
    --filter "${OPCERT_TABLE_FILTER:-}" --out "$work/$1"
  for f in report.json measurements.jsonl; do
    [ -f "$work/$1/$f" ] && { cp "$work/$1/$f" "$OUT/$1-$f"; break; }
  done
}
for spec in ${OPCERT_TABLE_SWEEPS:-latency:8:512K bandwidth:1M:1G}; do
  IFS=: read -r name lo hi <<< "$spec"
  sweep "$name" "$lo" "$hi"
done
step ctest-gpu ctest --test-dir build/gpu -L gpu --output-on-failure
step ctest-gpu-one env CUDA_VISIBLE_DEVICES=0 ctest --test-dir build/gpu -L gpu --output-on-failure
step run-torch-nccl "${launch[@]}" "$opcert" run --backend torch --impl 'torch.*.nccl' --suite collectives \
  --out "$work/torch" --timeout 60
[ -f "$work/torch/summary.md" ] && cat "$work/torch/summary.md" >> "$OUT/run-torch-nccl.txt"
cat "$summary"
! grep -qE 'rc=[1-9]|not started' "$summary"
