#include "check/philox.h"

#include "check/philox_avx2.h"


namespace opcert {
namespace {

// FNV-1a over the bytes, then a splitmix64 finaliser so similar names give unrelated keys.
uint64_t mix(uint64_t h, std::string_view text) {
  for (unsigned char c : text) h = (h ^ c) * 0x100000001B3ull;
  h = (h ^ 0xFFu) * 0x100000001B3ull;  // separator: ("ab","c") and ("a","bc") differ
  return h;
}

uint64_t finalise(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

CounterRng::CounterRng(uint64_t seed, std::string_view case_id, std::string_view tensor) {
  const uint64_t key = finalise(mix(mix(0xCBF29CE484222325ull ^ finalise(seed), case_id), tensor));
  key_[0] = static_cast<uint32_t>(key);
  key_[1] = static_cast<uint32_t>(key >> 32);
}

void CounterRng::uniform_block(uint64_t first, std::size_t n, double* out, uint32_t draw) const {
  static const bool avx2 = philox_detail::cpu_has_avx2();
  std::size_t done = 0;
  if (avx2 && n >= 8) {
    done = n - n % 8;
    philox_detail::uniform_block_avx2(key_[0], key_[1], first, done, draw, out);
  }
  for (std::size_t j = done; j < n; ++j) out[j] = uniform(first + j, draw);
}

}  // namespace opcert
