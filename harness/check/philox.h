// Counter-based random numbers (Philox4x32-10, Salmon et al., SC'11): element i of a tensor
// depends only on (seed, case, tensor, i), so any thread count and any machine give the same
// bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace opcert {

/// The raw Philox4x32-10 bijection: ten rounds over a 128-bit counter under a 64-bit key.
/// Inline, with CounterRng's draws: they are the inner loop of input generation (check/fill.cpp).
inline std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> ctr, uint32_t k0, uint32_t k1) {
  // Philox4x32-10 constants (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u, kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kMul0} * ctr[0];
    const uint64_t p1 = uint64_t{kMul1} * ctr[2];
    ctr = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ k0, static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ k1, static_cast<uint32_t>(p0)};
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return ctr;
}

class CounterRng {
 public:
  /// The stream of one tensor of one case: keyed by the run seed and the two names.
  CounterRng(uint64_t seed, std::string_view case_id, std::string_view tensor);

  /// Uniform in [0, 1) with 53 random bits, for element `index` and draw `draw` (0..1).
  double uniform(uint64_t index, uint32_t draw = 0) const {
    return static_cast<double>(bits(index, draw) >> 11) * 0x1.0p-53;
  }
  /// 64 random bits for element `index`.
  uint64_t bits(uint64_t index, uint32_t draw = 0) const {
    const auto out = philox4x32_10({static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), draw, 0u}, key_[0], key_[1]);
    return uint64_t{out[0]} << 32 | out[1];
  }
  /// out[j] = uniform(first + j, draw) for j in [0, n): the same values, eight elements at a time
  /// where the CPU has AVX2 (check/philox_avx2.cpp), else one by one.
  void uniform_block(uint64_t first, std::size_t n, double* out, uint32_t draw = 0) const;

 private:
  uint32_t key_[2];
};

}  // namespace opcert
