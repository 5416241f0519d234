#!/usr/bin/env bash
# Profiles cuda.attention.warpspec beside torch's SDPA (cuDNN's fused kernel) with Nsight Compute,
# one call of each per shape (attention_ws_probe.py --profile), at the clocks the GPU runs at
# (--clock-control none). Writes to OUT_DIR: details.txt (ncu's sections per kernel), metrics.csv
# (the raw metrics of the attention kernels: tensor pipes, stalls, launch shapes) and the run's log.
# Usage: ci/gpu/probes/attention_profile.sh OUT_DIR SHAPES [both|0|1]   SHAPES: BxHxSxD,...
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=$1
shapes=$2
causal=${3:-both}
mkdir -p "$out"
rep=/tmp/attention-profile
sections=(--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats
          --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SchedulerStats
          --section InstructionStats)
ncu --clock-control none "${sections[@]}" -o "$rep" --force-overwrite \
  python3 ci/gpu/probes/attention_ws_probe.py --profile --shapes "$shapes" --causal "$causal" --kernels warpspec \
  > "$out/ncu-run.txt" 2>&1
rc=$?
# The attention kernels only (torch's tensor fills are profiled too, and left out here).
filter=(--kernel-name regex:'attention_ws|cudnn|fmha|flash|sdpa|attn')
ncu --import "$rep.ncu-rep" "${filter[@]}" --page details > "$out/details.txt" 2>&1
ncu --import "$rep.ncu-rep" "${filter[@]}" --page raw --csv > "$out/metrics.csv" 2>&1
echo "ncu rc=$rc; $(grep -c '' "$out/details.txt") lines of details, $(grep -c '' "$out/metrics.csv") of metrics"
exit $rc
