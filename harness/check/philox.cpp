#include "check/philox.h"


namespace opcert {
namespace {

// Philox4x32-10 constants (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
constexpr uint32_t kMul0 = 0xD2511F53u;
constexpr uint32_t kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u;
constexpr uint32_t kWeyl1 = 0xBB67AE85u;

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

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> ctr, uint32_t k0, uint32_t k1) {
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

CounterRng::CounterRng(uint64_t seed, std::string_view case_id, std::string_view tensor) {
  const uint64_t key = finalise(mix(mix(0xCBF29CE484222325ull ^ finalise(seed), case_id), tensor));
  key_[0] = static_cast<uint32_t>(key);
  key_[1] = static_cast<uint32_t>(key >> 32);
}

uint64_t CounterRng::bits(uint64_t index, uint32_t draw) const {
  const auto out = philox4x32_10({static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), draw, 0u},
                                 key_[0], key_[1]);
  return uint64_t{out[0]} << 32 | out[1];
}

double CounterRng::uniform(uint64_t index, uint32_t draw) const {
  return static_cast<double>(bits(index, draw) >> 11) * 0x1.0p-53;
}

}  // namespace opcert
