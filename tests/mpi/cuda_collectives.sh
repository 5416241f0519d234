#!/usr/bin/env bash
# The CUDA backend's collectives on NCCL across GPUs, one rank per GPU (tests/mpi/CMakeLists.txt,
# labels gpu and mpi; ci/gpu/collectives.sh runs it on the two-GPU machine):
#   pass   every case of suites/collectives.json PASSES on every rank
#   hang   the last rank hangs in its 2nd collective (OPCERT_CUDA_TEST_FAULT): the other ranks' NCCL
#          calls end at the timeout and abort the communicator, the job ends within the timeout +
#          grace, the report records TIMEOUT for that case and ERROR for the cases never run
#   exit   the last rank exits in its 2nd collective: the job ends, rank 0 still writes the report
# Skips (77) without mpirun or MPI, without NCCL in the build, or with fewer GPUs than ranks.
# usage: cuda_collectives.sh SCENARIO MPIRUN OPCERT NP OUTDIR WITH_NCCL(0/1)
set -uo pipefail
scenario=$1 mpirun=$2 opcert=$3 np=$4 out=$5 with_nccl=$6
skip() { echo "skipped: $*"; exit 77; }
[ -n "$mpirun" ] || skip "no mpirun, or opcert built without MPI (OPCERT_WITH_MPI)"
[ "$with_nccl" = 1 ] || skip "opcert built without NCCL (OPCERT_WITH_NCCL, NCCL_ROOT)"
gpus=$("$(dirname "$0")/visible_gpus.sh")
[ "${gpus:-0}" -ge "$np" ] || skip "$np ranks need $np GPUs; ${gpus:-0} visible (nvidia-smi, CUDA_VISIBLE_DEVICES)"
rm -rf "$out"
# Loopback for MPI (it only carries the bootstrap and the results), root allowed. NVLink
# multicast stays off unless the caller chose otherwise: some shared hosts require it (docs/CUDA.md).
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_odls_base_sigkill_timeout=5
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
launch=("$mpirun" -np "$np" --bind-to none -x NCCL_NVLS_ENABLE)
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)

last=$((np - 1))
start=$(date +%s)
case "$scenario" in
  pass)
    "${launch[@]}" "$opcert" run --suite collectives --backend cuda --no-peer --out "$out" --progress plain \
      --timeout 60 > "$out.log" 2>&1
    rc=$? ;;
  hang | exit)
    OPCERT_CUDA_TEST_FAULT="$scenario:$last@2" "${launch[@]}" -x OPCERT_CUDA_TEST_FAULT "$opcert" run \
      --suite collectives --backend cuda --no-peer --filter '^all_reduce\.fp32\.count1001(\.max|\.min)?$' \
      --timeout 4 --out "$out" --progress plain > "$out.log" 2>&1
    rc=$? ;;
  *) echo "unknown scenario $scenario"; exit 2 ;;
esac
elapsed=$(( $(date +%s) - start ))
cat "$out.log"
echo "exit code $rc in $elapsed s"

# Rank 0 waited for the hung last rank: its NCCL call must have ended at the deadline (TIMEOUT),
# and the hung rank's watchdog reports it TIMEOUT too.
timeout_ranks=""
[ "$scenario" = hang ] && timeout_ranks=0,$last
exec python3 "$(dirname "$0")/check_collective_report.py" "$scenario" "$out" "$np" "$rc" "$elapsed" "$timeout_ranks" 60
