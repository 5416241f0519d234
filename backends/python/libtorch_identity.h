// One process can hold one LibTorch. The torch Python imports must be the very library opcert is
// linked against (docs/PYTHON.md, "Which Python"): two copies of libtorch_cpu mapped at once
// means two sets of global registries, and crashes later rather than a clear refusal now.
#pragma once

#include <string>

namespace opcert::python_bridge {

/// Why the libraries mapped into this process hold two different LibTorch builds ("" when not).
std::string libtorch_conflict();

}  // namespace opcert::python_bridge
