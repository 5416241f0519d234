// Portable micro-kernels (plain C++, any CPU) and the run-time choice of instruction set.
#include "ops/gemm_kernels.h"

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace opcert::cpu {
namespace {

constexpr int kPortableMr = 4;
constexpr int kPortableNr = 16;

void f32_tile_portable(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, TileUpdate update,
                       const float* row_scale, const float* col_scale) {
  float acc[kPortableMr][kPortableNr] = {};
  for (int64_t k = 0; k < kc; ++k) {
    for (int r = 0; r < kPortableMr; ++r)
      for (int j = 0; j < kPortableNr; ++j) acc[r][j] += a[r] * b[j];
    a += kPortableMr;
    b += kPortableNr;
  }
  const bool scaled = update == TileUpdate::kScaleStore || update == TileUpdate::kScaleAccumulate;
  const bool accumulate = update == TileUpdate::kAccumulate || update == TileUpdate::kScaleAccumulate;
  for (int r = 0; r < kPortableMr; ++r) {
    float* cr = c + r * ldc;
    for (int j = 0; j < kPortableNr; ++j) {
      float p = acc[r][j];
      if (scaled) p = (row_scale[r] * col_scale[j]) * p;
      cr[j] = accumulate ? cr[j] + p : p;
    }
  }
}

void i8_tile_portable(int64_t kc4, const uint32_t* a, const uint32_t* b, int32_t* c, int64_t ldc, int32_t accumulate) {
  // Unsigned arithmetic: the same wrap-around modulo 2^32 as vpdpbusd, and no signed overflow.
  uint32_t acc[kPortableMr][kPortableNr] = {};
  for (int64_t k = 0; k < kc4; ++k) {
    for (int r = 0; r < kPortableMr; ++r) {
      const uint32_t aw = a[r];
      for (int j = 0; j < kPortableNr; ++j) {
        const uint32_t bw = b[j];
        int32_t dot = 0;
        for (int q = 0; q < 4; ++q) {
          const auto au = static_cast<int32_t>((aw >> (8 * q)) & 0xFFu);
          const auto bs = static_cast<int32_t>(static_cast<int8_t>((bw >> (8 * q)) & 0xFFu));
          dot += au * bs;
        }
        acc[r][j] += static_cast<uint32_t>(dot);
      }
    }
    a += kPortableMr;
    b += kPortableNr;
  }
  for (int r = 0; r < kPortableMr; ++r) {
    int32_t* cr = c + r * ldc;
    for (int j = 0; j < kPortableNr; ++j) {
      const uint32_t base = accumulate != 0 ? static_cast<uint32_t>(cr[j]) : 0u;
      cr[j] = static_cast<int32_t>(base + acc[r][j]);
    }
  }
}

// Eight partial sums per row: a vectorisable order, still fp32.
void f32_dot_rows_portable(const float* a, int64_t lda, int64_t rows, const float* b, int64_t n, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* ar = a + r * lda;
    float part[8] = {};
    int64_t k = 0;
    for (; k + 8 <= n; k += 8)
      for (int q = 0; q < 8; ++q) part[q] += ar[k + q] * b[k + q];
    for (; k < n; ++k) part[k % 8] += ar[k] * b[k];
    out[r] = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
  }
}

void i8_dot_rows_portable(const int8_t* a, int64_t lda, int64_t rows, const int8_t* b, int64_t n, int32_t* out) {
  for (int64_t r = 0; r < rows; ++r) {
    uint32_t sum = 0;
    for (int64_t k = 0; k < n; ++k) sum += static_cast<uint32_t>(int32_t{a[r * lda + k]} * int32_t{b[k]});
    out[r] = static_cast<int32_t>(sum);
  }
}

bool cpu_has_avx512() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#else
  return false;
#endif
}

bool cpu_has_avx512_vnni() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return cpu_has_avx512() && __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

bool cpu_has_avx512_bf16() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return cpu_has_avx512() && __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

// OPCERT_CPU_ISA caps the choice: to compare kernels, or to take a faster set out of the way.
Isa isa_cap() {
  const char* forced = std::getenv("OPCERT_CPU_ISA");
  if (forced == nullptr) return Isa::kAvx512Bf16;
  if (std::strcmp(forced, "portable") == 0) return Isa::kPortable;
  if (std::strcmp(forced, "avx512") == 0) return Isa::kAvx512;
  return Isa::kAvx512Bf16;
}

}  // namespace

bool isa_available(Isa isa) {
  switch (isa) {
    case Isa::kPortable: return true;
    case Isa::kAvx512: {
      static const bool available = cpu_has_avx512() && avx512_f32_kernel().run != nullptr;
      return available;
    }
    case Isa::kAvx512Bf16: {
      static const bool available =
          isa_available(Isa::kAvx512) && cpu_has_avx512_bf16() && avx512_bf16_pair_kernel().run != nullptr;
      return available;
    }
  }
  return false;
}

Isa active_isa() {
  static const Isa isa = [] {
    const Isa cap = isa_cap();
    for (Isa best : {Isa::kAvx512Bf16, Isa::kAvx512})
      if (static_cast<int32_t>(best) <= static_cast<int32_t>(cap) && isa_available(best)) return best;
    return Isa::kPortable;
  }();
  return isa;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kAvx512: return "avx512";
    case Isa::kAvx512Bf16: return "avx512-bf16";
    default: return "portable";
  }
}

F32Kernel f32_kernel(Isa isa) {
  if (isa != Isa::kPortable && isa_available(Isa::kAvx512)) return avx512_f32_kernel();
  return {kPortableMr, kPortableNr, f32_tile_portable, f32_dot_rows_portable};
}

I8Kernel i8_kernel(Isa isa) {
  static const bool vnni = cpu_has_avx512_vnni() && avx512_vnni_i8_kernel().run != nullptr;
  if (isa != Isa::kPortable && vnni) return avx512_vnni_i8_kernel();
  return {kPortableMr, kPortableNr, i8_tile_portable, i8_dot_rows_portable};
}

PairKernel pair_kernel(Isa isa) {
  if (isa == Isa::kAvx512Bf16 && isa_available(Isa::kAvx512Bf16)) return avx512_bf16_pair_kernel();
  return {};
}

}  // namespace opcert::cpu
