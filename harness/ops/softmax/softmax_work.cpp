// softmax's work (docs/OPS.md "Work model"): its arithmetic is negligible next to its traffic, so it
// is judged by GB/s over every operand's bytes once.
#include "ops/softmax/softmax.h"

namespace opcert::ops::softmax {

WorkModel work(const Case& c) { return memory_bound_work(c); }

}  // namespace opcert::ops::softmax
