// Generates an input tensor's values from its FillSpec and rounds them into its dtype.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/host_tensor.h"

namespace opcert {

/// The generated tensor for `spec` (an input of case `case_id` under `seed`).
HostTensor generate_input(const TensorSpec& spec, uint64_t seed, std::string_view case_id);

}  // namespace opcert
