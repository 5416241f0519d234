// Placeholder until the op lands: registers no implementation.
#include "ops/cpu_ops.h"

namespace opcert::cpu {

std::vector<sdk::Implementation> gemm_implementations() { return {}; }

}  // namespace opcert::cpu
