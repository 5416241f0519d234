// The CPU backend's table of implementations: each file of ops/ registers its op's there, in the
// file itself, and the backend's constructor adds everything registered (cpu_backend.cpp).
//
//   std::vector<sdk::Implementation> softmax_implementations() { ... }   // keys "cpu.<op>.<variant>"
//   OPCERT_REGISTER_IMPLEMENTATIONS(CpuImplementations, "softmax", softmax_implementations)
//
// A file outside backends/cpu may register too (tests/ops/toy does), when its object is linked
// into the executable beside the backend.
#pragma once

#include <opcert/sdk/implementation_registry.h>

namespace opcert::cpu {

using CpuImplementations = sdk::ImplementationRegistry<struct CpuBackendTag>;

}  // namespace opcert::cpu

