// The collectives ("cpu.<op>.mpi": all_reduce, all_gather, reduce_scatter, broadcast, all_to_all),
// registered as every op of this folder is; they run on the communicator the backend also is
// (collectives/collective_impls.h, sdk::CommBackend), never through run_op alone.
#include "collectives/collective_impls.h"
#include "cpu_implementations.h"

namespace opcert::cpu {

OPCERT_REGISTER_IMPLEMENTATIONS(CpuImplementations, "collectives", collective_implementations)

}  // namespace opcert::cpu
