// The torch backend's table of implementations: each file of ops/ registers its op's there, in
// the file itself, and the backend's constructor adds everything registered (torch_backend.cpp).
// Keys are "torch.<op>.native": each op runs through LibTorch in its operands' own dtype, the way
// a framework user would call it (docs/OPS.md is the contract they meet).
//
//   std::vector<sdk::Implementation> softmax_implementations() { ... }
//   OPCERT_REGISTER_IMPLEMENTATIONS(TorchImplementations, "softmax", softmax_implementations)
#pragma once

#include <opcert/sdk/implementation_registry.h>

namespace opcert::torch_backend {

using TorchImplementations = sdk::ImplementationRegistry<struct TorchBackendTag>;

}  // namespace opcert::torch_backend

