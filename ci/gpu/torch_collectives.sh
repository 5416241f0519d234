#!/usr/bin/env bash
# The torch backend's collectives on the GPU machine: torch.distributed's NCCL process group
# (c10d::ProcessGroupNCCL, the torch.<op>.nccl keys) from C++, one MPI rank per GPU, on every case
# of suites/collectives.json. Builds build/gpu-torch against the machine's pip torch with MPI and
# OPCERT_WITH_TORCH_NCCL=ON (the CUDA backend too when OPCERT_WITH_CUDA=ON is in the environment;
# off by default, to build quickly). Usage:
#   ci/gpu/torch_collectives.sh [NP] [FILTER]   # NP: ranks, default one per GPU (1 works too)
# Logs land in $OUT: build.txt, torch_collectives.txt (summary), torch_collectives.log (every case).
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p "${OUT:=out}" build
gpus=$(tests/mpi/visible_gpus.sh)
np=${1:-$gpus}
filter=${2:-}
[ "$np" -ge 1 ] 2>/dev/null || { echo "opcert: no GPU seen by nvidia-smi and no NP given" | tee "$OUT/build.txt"; exit 2; }
build=build/gpu-torch
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
{
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPCERT_BUILD_TESTS=OFF \
    -DOPCERT_WITH_CUDA="${OPCERT_WITH_CUDA:-OFF}" -DCMAKE_CUDA_ARCHITECTURES=90a -DOPCERT_WITH_MPI=ON \
    -DOPCERT_WITH_TORCH=ON -DOPCERT_WITH_TORCH_NCCL=ON -DCMAKE_PREFIX_PATH="$torch_prefix" \
    && cmake --build "$build" -j "$(nproc)" --target opcert
} > "$build.log" 2>&1
rc=$?
grep -E "opcert: (CUDA|torch backend)" "$build.log" > "$OUT/build.txt"
if [ "$rc" != 0 ]; then
  { grep -E "error|Error" -A3 "$build.log" | head -80; tail -20 "$build.log"; } >> "$OUT/build.txt"
  for log in "$build"/opcert_probes/*.log; do [ -f "$log" ] && { echo "== $log"; tail -40 "$log"; } >> "$OUT/build.txt"; done
  cat "$OUT/build.txt"
  exit 2
fi
opcert=$build/harness/cli/opcert
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader >> "$OUT/build.txt" 2>&1 || true
"$opcert" list 2>&1 | grep -E '^ *torch|torch\..*\.nccl' >> "$OUT/build.txt"

# One rank per GPU (each takes its local rank's device); NVLink SHARP stays off on these machines.
export NCCL_NVLS_ENABLE=0
# Containers often forbid the cross-process memory reads Open MPI's shared-memory transport uses
# for large messages (the harness's result messages); plain copies work everywhere.
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
launch=(mpirun -np "$np" --bind-to none -x NCCL_NVLS_ENABLE)
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
work=/tmp/opcert-torch-collectives
rm -rf "$work"
start=$(date +%s)
"${launch[@]}" "$opcert" run --suite collectives --backend torch --impl 'torch.*.nccl' --filter "$filter" \
  --out "$work" --progress plain --timeout 60 > "$OUT/torch_collectives.log" 2>&1
rc=$?
summary="$OUT/torch_collectives.txt"
{
  echo "== mpirun -np $np: exit code $rc in $(( $(date +%s) - start )) s"
  grep -E " (FAILED|ERROR|CRASHED|TIMEOUT|SKIPPED|MISTRUSTED) " "$OUT/torch_collectives.log" | head -60
  grep -E "^backend|^torch " "$OUT/torch_collectives.log"
  tail -3 "$OUT/torch_collectives.log"
} > "$summary"
cat "$summary"
exit "$rc"
