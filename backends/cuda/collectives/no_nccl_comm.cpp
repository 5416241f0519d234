// Built without NCCL: the CUDA backend lists its collectives and declines every one, saying how
// to build them in.
#include <opcert/sdk/error.h>

#include "collectives/nccl_comm.h"

namespace opcert::cuda {

std::string nccl_unavailable() {
  return "the CUDA backend was built without NCCL; reconfigure with -DOPCERT_WITH_NCCL=ON -DNCCL_ROOT=<folder with "
         "include/nccl.h and lib/libnccl.so> (docs/CUDA.md)";
}

uint32_t nccl_unique_id(uint8_t*) { throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, nccl_unavailable()); }

std::unique_ptr<NcclComm> make_nccl_comm(CudaContext&, int, int, const uint8_t*, uint32_t, double) {
  throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, nccl_unavailable());
}

}  // namespace opcert::cuda
