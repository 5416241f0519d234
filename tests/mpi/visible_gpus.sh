#!/usr/bin/env bash
# Prints how many GPUs this process may use: nvidia-smi's count, narrowed by CUDA_VISIBLE_DEVICES
# when it is set (an empty value hides every GPU), so that a script run with one GPU made visible
# on a machine of several plans for one. tests/mpi and ci/gpu share it.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
gpus=${gpus:-0}
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
  visible=$(printf '%s' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c . || true)
  [ "${visible:-0}" -lt "$gpus" ] && gpus=${visible:-0}
fi
echo "$gpus"
