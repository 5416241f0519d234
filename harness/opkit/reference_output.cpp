#include "opkit/reference_output.h"

#include <cmath>

namespace opcert {

double ReferenceOutput::magnitude_at(std::size_t k) const {
  return k < magnitude.size() ? magnitude[k] : std::fabs(values[k]);
}

double ReferenceOutput::condition_at(std::size_t k) const { return k < condition.size() ? condition[k] : 1.0; }

}  // namespace opcert
