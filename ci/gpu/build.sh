#!/usr/bin/env bash
# Builds the opcert binary on the GPU machine against its PyTorch's LibTorch, with the CUDA backend
# for sm_90a only (Release) into build/gpu; with OPCERT_GPU_TESTS=1 also the gpu-labelled tests.
# Prints the build's errors and exits 2 when it fails. Used by the other scripts here.
set -euo pipefail
cd "$(dirname "$0")/../.."
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
build=build/gpu
tests=OFF
targets=(opcert)
if [ "${OPCERT_GPU_TESTS:-0}" = 1 ]; then tests=ON; targets+=(cuda_smoke_test); fi
mkdir -p build
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPCERT_BUILD_TESTS=$tests \
  -DOPCERT_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90a -DOPCERT_WITH_MPI=OFF -DCMAKE_PREFIX_PATH="$torch_prefix" > "$build.configure.log" 2>&1 \
  || { tail -40 "$build.configure.log"; exit 2; }
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" > "$build.build.log" 2>&1 || { grep -E "error" -A3 "$build.build.log" | head -60; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
