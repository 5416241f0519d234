# shellcheck shell=bash
# Sourced by the Slurm tests: `start_slurm_cluster DIR CPUS` starts a one-node Slurm cluster on
# localhost (slurmctld and slurmd, in the foreground of background jobs, as root), everything in DIR:
# a generated slurm.conf, state, spool, pid and log files, on two free TCP ports; no accounting, no
# munge (auth/none), no cgroups (proctrack/linuxproc, task/none). It exports SLURM_CONF for srun and
# sinfo, waits until the node is idle, and stops both daemons on exit (a trap, always). Where the
# cluster cannot run here (no Slurm, not root, a daemon that will not start or a node that never
# comes up) it exits 77 (skipped) with the reason and the daemons' last log lines.

slurm_skip() {
  echo "skipped: $*"
  exit 77
}

slurm_pids=()
stop_slurm_cluster() {
  local pid
  for pid in ${slurm_pids[@]+"${slurm_pids[@]}"}; do kill -TERM "$pid" 2>/dev/null; done
  for pid in ${slurm_pids[@]+"${slurm_pids[@]}"}; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  slurm_pids=()
}

slurm_logs() {
  local f
  for f in "$1"/slurmctld.log "$1"/slurmd.log "$1"/slurmctld.out "$1"/slurmd.out; do
    [ -s "$f" ] && { echo "--- $f (last lines)"; tail -n 8 "$f"; }
  done
}

start_slurm_cluster() {
  local dir=$1 cpus=$2 tool
  for tool in slurmctld slurmd srun sinfo; do
    command -v "$tool" >/dev/null || slurm_skip "no $tool: install Debian's slurm-wlm (apt-get install slurm-wlm)"
  done
  [ "$(id -u)" = 0 ] || slurm_skip "not root: this test starts slurmctld and slurmd as root (SlurmUser=root)"
  rm -rf "$dir"
  mkdir -p "$dir/state" "$dir/spool"
  local ports
  # Two ports the kernel hands out now (closed again at once): no collision with another cluster.
  ports=$(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])') || slurm_skip "cannot pick two free TCP ports on localhost"
  read -r ctld_port d_port <<< "$ports"
  cat > "$dir/slurm.conf" <<EOF
ClusterName=opcerttest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=localhost CPUs=$cpus State=UNKNOWN
PartitionName=opcert Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$dir/slurm.conf
  srun --mpi=list 2>&1 | grep -q pmix ||
    slurm_skip "this srun has no PMIx plugin (srun --mpi=list): Open MPI's ranks under srun need --mpi=pmix"
  trap stop_slurm_cluster EXIT
  slurmctld -D -i -f "$SLURM_CONF" > "$dir/slurmctld.out" 2>&1 &
  slurm_pids+=($!)
  slurmd -D -f "$SLURM_CONF" -N localhost > "$dir/slurmd.out" 2>&1 &
  slurm_pids+=($!)
  local state="" pid
  for _ in $(seq 300); do
    for pid in "${slurm_pids[@]}"; do
      kill -0 "$pid" 2>/dev/null || { slurm_logs "$dir"; slurm_skip "a Slurm daemon exited at start (logs above, in $dir)"; }
    done
    state=$(sinfo -h -n localhost -o %T 2>/dev/null)
    [ "$state" = idle ] && { echo "slurm: one node (localhost, $cpus CPUs) idle, controller on port $ctld_port"; return 0; }
    sleep 0.1
  done
  slurm_logs "$dir"
  slurm_skip "the Slurm node is not idle after 30 s (sinfo says '${state:-nothing}'; logs above, in $dir)"
}
