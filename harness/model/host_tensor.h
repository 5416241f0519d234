// A tensor in host memory, in its storage dtype: the generated inputs, the bytes a backend
// produced, and what the reference reads.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "model/tensor_spec.h"

namespace opcert {

struct HostTensor {
  TensorSpec spec;
  std::vector<std::byte> bytes;  // spec.bytes() long

  HostTensor() = default;
  explicit HostTensor(TensorSpec s) : spec(std::move(s)), bytes(spec.bytes()) {}

  template <class T>
  std::span<T> as() {
    return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)};
  }
  template <class T>
  std::span<const T> as() const {
    return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
  }

  /// Element i converted exactly to double (every storage dtype fits in fp64).
  double value(int64_t i) const;
  /// All elements as doubles.
  std::vector<double> values() const;
};

/// The input or output of that name, or nullptr.
const HostTensor* find_tensor(std::span<const HostTensor> tensors, const std::string& name);

}  // namespace opcert
