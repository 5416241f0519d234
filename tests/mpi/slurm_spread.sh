#!/usr/bin/env bash
# `opcert run --devices all --device-mode spread` across the ranks of an srun step (docs/SCALE.md):
# a one-node Slurm cluster on localhost (slurm_cluster.sh), the CPU backend split into NP devices,
# `srun --mpi=pmix -n NP` ranks sharing a small gemm sweep's cases, against one process alone: the
# same case set and verdicts (`opcert compare` clean, every case once, in the suite's order), and
# every rank ran a share. Open MPI (Debian's) joins srun's tasks into one job through PMIx only,
# hence --mpi=pmix; with --mpi=none each rank refuses in one line (exit 2). Skipped (77) with the
# reason where Slurm cannot run here.
# usage: slurm_spread.sh OPCERT NP OUTDIR WITH_MPI
set -uo pipefail
opcert=$1 np=$2 out=$3 with_mpi=$4
[ "$with_mpi" = 1 ] || { echo "skipped: opcert built without MPI (OPCERT_WITH_MPI)"; exit 77; }
rm -rf "$out"
mkdir -p "$out"
source "$(dirname "$0")/slurm_cluster.sh"
cpus=$(nproc)
[ "$cpus" -ge "$np" ] || cpus=$np  # declared (config_overrides): srun -n NP needs NP CPUs to place
start_slurm_cluster "$out/cluster" "$cpus"

args=(run --backend cpu --suite sweeps/gemm --progress plain --filter '^gemm\.fp32\.m(33|128)\.n47\.')
"$opcert" "${args[@]}" --out "$out/single" > "$out/single.log" 2>&1
rc=$?
[ "$rc" = 0 ] || { cat "$out/single.log"; echo "FAILED: one process exited $rc"; exit 1; }

# Open MPI's loopback-only settings (its `launch`, for mpirun, goes unused); srun hands the
# environment to every task.
mpirun=mpirun
source "$(dirname "$0")/mpi_env.sh"
OPCERT_CPU_DEVICES=$np timeout 240 srun --mpi=pmix -n "$np" --kill-on-bad-exit=1 \
  "$opcert" "${args[@]}" --devices all --device-mode spread --out "$out/ranks" > "$out/ranks.log" 2>&1
rc=$?
cat "$out/ranks.log"
[ "$rc" = 0 ] || { echo "FAILED: srun of $np ranks exited $rc"; exit 1; }
# Without PMIx, Open MPI cannot make one job of the step: every rank says so in one line, exit 2.
OPCERT_CPU_DEVICES=$np timeout 120 srun --mpi=none -n "$np" \
  "$opcert" "${args[@]}" --devices all --device-mode spread --out "$out/nopmix" > "$out/nopmix.log" 2>&1
rc=$?
cat "$out/nopmix.log"
[ "$rc" = 2 ] || { echo "FAILED: srun --mpi=none exited $rc, not 2"; exit 1; }
grep -q "^opcert: error: started by Slurm srun as rank [01] of $np without PMIx.*srun --mpi=pmix" "$out/nopmix.log" ||
  { echo "FAILED: srun --mpi=none: no line saying to use srun --mpi=pmix"; exit 1; }
stop_slurm_cluster

"$opcert" compare "$out/single" "$out/ranks" > "$out/compare.log" 2>&1
rc=$?
cat "$out/compare.log"
[ "$rc" = 0 ] || { echo "FAILED: compare of one process and $np srun ranks exited $rc"; exit 1; }
python3 "$(dirname "$0")/check_spread.py" "$out" "$np" pass
