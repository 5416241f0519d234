#!/usr/bin/env bash
# Builds the opcert binary on the GPU machine against its PyTorch's LibTorch, with the CUDA backend
# for sm_90a only (Release) into build/gpu; with OPCERT_GPU_TESTS=1 also the gpu-labelled tests.
# OPCERT_GPU_MPI=1 builds in MPI (collectives across ranks), OPCERT_GPU_NCCL=1 the CUDA backend's
# collectives on the NCCL of the nvidia-nccl Python package, OPCERT_GPU_TORCH_NCCL=1 the torch
# backend's collectives on torch.distributed's NCCL process group (docs/TORCH.md); all off by default.
# Prints the build's errors and exits 2 when it fails. Used by the other scripts here.
set -euo pipefail
cd "$(dirname "$0")/../.."
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
build=build/gpu
tests=OFF
targets=(opcert)
if [ "${OPCERT_GPU_TESTS:-0}" = 1 ]; then
  tests=ON
  targets+=(cuda_smoke_test cuda_collectives_test cuda_collective_plan_test gpu_monitor_test)
fi
options=(-DOPCERT_WITH_MPI=OFF -DOPCERT_WITH_NCCL=OFF)
[ "${OPCERT_GPU_MPI:-0}" = 1 ] && options[0]=-DOPCERT_WITH_MPI=ON
if [ "${OPCERT_GPU_NCCL:-0}" = 1 ]; then
  site=$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))') \
    || { echo "OPCERT_GPU_NCCL=1 but python3 has no nvidia packages (nvidia-nccl)"; exit 2; }
  options[1]=-DOPCERT_WITH_NCCL=ON
  options+=(-DNCCL_ROOT="$site/nvidia/nccl")
fi
[ "${OPCERT_GPU_TORCH_NCCL:-0}" = 1 ] && options+=(-DOPCERT_WITH_TORCH_NCCL=ON)
mkdir -p build
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPCERT_BUILD_TESTS=$tests \
  -DOPCERT_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90a "${options[@]}" -DCMAKE_PREFIX_PATH="$torch_prefix" > "$build.configure.log" 2>&1 \
  || { tail -40 "$build.configure.log"; exit 2; }
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" > "$build.build.log" 2>&1 || { grep -E "error" -A3 "$build.build.log" | head -60; exit 2; }
grep -E "^-- opcert:" "$build.configure.log" || true
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
