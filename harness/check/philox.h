// Counter-based random numbers (Philox4x32-10, Salmon et al., SC'11): element i of a tensor
// depends only on (seed, case, tensor, i), so any thread count and any machine give the same
// bytes.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace opcert {

/// The raw Philox4x32-10 bijection: ten rounds over a 128-bit counter under a 64-bit key.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, uint32_t key0, uint32_t key1);

class CounterRng {
 public:
  /// The stream of one tensor of one case: keyed by the run seed and the two names.
  CounterRng(uint64_t seed, std::string_view case_id, std::string_view tensor);

  /// Uniform in [0, 1) with 53 random bits, for element `index` and draw `draw` (0..1).
  double uniform(uint64_t index, uint32_t draw = 0) const;
  /// 64 random bits for element `index`.
  uint64_t bits(uint64_t index, uint32_t draw = 0) const;

 private:
  uint32_t key_[2];
};

}  // namespace opcert
