# Sourced by the MPI test scripts: what a CI container has (loopback TCP only, oversubscribed
# cores, root allowed), and `launch`, the mpirun command line for $mpirun and $np.
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Time between the SIGTERM and the SIGKILL when a rank dies: rank 0 writes the reports in it.
export OMPI_MCA_odls_base_sigkill_timeout=5
launch=("$mpirun" --oversubscribe -np "$np")
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
