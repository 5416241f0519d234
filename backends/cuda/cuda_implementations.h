// The CUDA backend's table of implementations: each file of ops/ registers its op's there, in the
// file itself, and the backend's constructor adds everything registered (cuda_backend.cpp). Every
// factory gets the backend's context (device, stream, cuBLASLt handle) and captures it by
// reference: the backend owns it and outlives its implementations.
//
//   std::vector<sdk::Implementation> softmax_implementations(CudaContext& ctx) { ... }
//   OPCERT_REGISTER_IMPLEMENTATIONS(CudaImplementations, "softmax", softmax_implementations)
#pragma once

#include <opcert/sdk/implementation_registry.h>

#include "cuda_context.h"

namespace opcert::cuda {

using CudaImplementations = sdk::ImplementationRegistry<struct CudaBackendTag, CudaContext>;

}  // namespace opcert::cuda

