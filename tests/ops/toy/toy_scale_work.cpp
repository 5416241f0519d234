// toy_scale's work: one multiply per element, judged by its bytes (GB/s).
#include "toy_scale.h"

namespace opcert::ops::toy_scale {

WorkModel work(const Case& c) { return memory_bound_work(c); }

}  // namespace opcert::ops::toy_scale
