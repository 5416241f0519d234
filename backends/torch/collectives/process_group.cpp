#include "collectives/process_group.h"

#include <cstdlib>

namespace opcert::torch_backend {

const char* transport_name(Transport t) { return t == Transport::kGloo ? "gloo" : "nccl"; }

std::string transport_missing(Transport t) {
  if (t == Transport::kGloo) {
#if OPCERT_TORCH_HAS_GLOO
    return "";
#else
    return "this build of the torch backend has no c10d ProcessGroupGloo (OPCERT_WITH_TORCH_GLOO, docs/TORCH.md)";
#endif
  }
#if OPCERT_TORCH_HAS_NCCL
  return "";
#else
  return "this build of the torch backend has no c10d ProcessGroupNCCL (OPCERT_WITH_TORCH_NCCL, docs/TORCH.md)";
#endif
}

void prepare_environment(Transport t) {
  if (t == Transport::kNccl) setenv("TORCH_NCCL_ASYNC_ERROR_HANDLING", "0", /*overwrite=*/0);
}

}  // namespace opcert::torch_backend
