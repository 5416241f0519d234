// compute_reference for a build without LibTorch: the rest of opcert links, and asking for the
// golden reference says what to install.
#include <stdexcept>

#include "reference/reference.h"

namespace opcert {

std::vector<ReferenceOutput> compute_reference(const Case&, std::span<const HostTensor>, const SamplePlan&) {
  throw std::runtime_error(
      "opcert was built without LibTorch: the golden reference is unavailable; install libtorch-dev");
}

}  // namespace opcert
