#include "model/host_tensor.h"

#include "model/dtype.h"
#include "model/scalar_codec.h"

namespace opcert {

double HostTensor::value(int64_t i) const {
  return load_from(spec.dtype, bytes.data() + static_cast<std::size_t>(i) * dtype_bytes(spec.dtype));
}

std::vector<double> HostTensor::values() const {
  std::vector<double> out(static_cast<std::size_t>(spec.numel()));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = value(static_cast<int64_t>(i));
  return out;
}

const HostTensor* find_tensor(std::span<const HostTensor> tensors, const std::string& name) {
  for (const auto& t : tensors)
    if (t.spec.name == name) return &t;
  return nullptr;
}

}  // namespace opcert
