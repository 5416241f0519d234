// Philox4x32-10 uniform draws eight elements at a time with AVX2 (check/philox.h's
// CounterRng::uniform_block): the same integer rounds as philox4x32_10 lane by lane, and the same
// exact conversion of 53 of the 64 bits to a double in [0, 1).
#pragma once

#include <cstddef>
#include <cstdint>

namespace opcert::philox_detail {

/// Whether this CPU runs the AVX2 kernel.
bool cpu_has_avx2();

/// out[j] = uniform of counter {first + j, draw, 0} under key (k0, k1), j in [0, n), n a multiple of 8.
void uniform_block_avx2(uint32_t k0, uint32_t k1, uint64_t first, std::size_t n, uint32_t draw, double* out);

}  // namespace opcert::philox_detail
