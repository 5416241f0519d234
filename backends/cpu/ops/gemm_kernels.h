// Register-tile micro-kernels of the CPU GEMMs and the choice between instruction sets.
//
// A micro-kernel multiplies one packed A panel (MR rows) by one packed B panel (NR columns) over
// a K slice and updates an MR x NR tile of a row-major accumulator. Packing (gemm_pack.h) pads
// panels to full MR / NR, so a kernel always computes and writes the full tile.
//
// The AVX-512 kernels live in gemm_kernels_avx512.cpp, compiled with AVX-512 flags; that unit
// includes nothing but this header and <immintrin.h>, so none of its code can replace portable
// code at link time. Which set runs is decided at run time from the CPU's features.
#pragma once

#include <cstdint>

namespace opcert::cpu {

/// How a fp32 micro-kernel combines its product P (MR x NR) with the tile C.
enum class TileUpdate : int32_t {
  kStore = 0,        // C = P
  kAccumulate = 1,   // C += P
  kScaleStore = 2,   // C = (row_scale[r] * col_scale[c]) * P
  kScaleAccumulate = 3,  // C += (row_scale[r] * col_scale[c]) * P
};

/// fp32 micro-kernel. a: kc x MR (MR floats per k), b: kc x NR (NR floats per k), c: MR rows of
/// ldc floats. row_scale [MR] / col_scale [NR] are read by the scaled updates only.
using F32MicroKernel = void (*)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, TileUpdate update,
                                const float* row_scale, const float* col_scale);

/// int8 micro-kernel over kc4 groups of 4 K elements. a: kc4 x MR words, each 4 consecutive-k
/// bytes of one row stored as uint8 (a + 128); b: kc4 x NR words of 4 int8. c: MR rows of ldc
/// int32, C = P (accumulate == 0) or C += P, where P = sum (a + 128) * b with int32 wrap-around.
using I8MicroKernel = void (*)(int64_t kc4, const uint32_t* a, const uint32_t* b, int32_t* c, int64_t ldc,
                               int32_t accumulate);

/// Dot products of one vector with up to 4 rows, for GEMMs with a few rows (decode):
/// out[r] = sum_k a[r * lda + k] * b[k] for r < rows, k < n; fp32 accumulation (int8: exact int32).
using F32DotRows = void (*)(const float* a, int64_t lda, int64_t rows, const float* b, int64_t n, float* out);
using I8DotRows = void (*)(const int8_t* a, int64_t lda, int64_t rows, const int8_t* b, int64_t n, int32_t* out);
constexpr int64_t kDotRowsMax = 4;

/// Packs `rows` (<= R) depth-contiguous rows of src (row i at src + i * ld) over kc elements into
/// one kc x R panel (element (i, k) at dst + k * R + i); rows past `rows` are zero. Optional
/// fast paths of the packing (gemm_pack.cpp) for fp32 and bf16 sources.
using F32PackRows = void (*)(const float* src, int64_t ld, int64_t rows, int64_t kc, int32_t R, float* dst);
using Bf16PackRows = void (*)(const uint16_t* src, int64_t ld, int64_t rows, int64_t kc, int32_t R, float* dst);

struct F32Kernel {
  int32_t mr;
  int32_t nr;
  F32MicroKernel run;
  F32DotRows dot_rows;
  F32PackRows pack_f32 = nullptr;    // null: the portable packing
  Bf16PackRows pack_bf16 = nullptr;  // null: the portable packing
};

struct I8Kernel {
  int32_t mr;
  int32_t nr;
  I8MicroKernel run;
  I8DotRows dot_rows;
};

/// The instruction sets the GEMMs have kernels for.
enum class Isa : int32_t { kPortable = 0, kAvx512 = 1 };

/// True when this CPU can run kernels of `isa` (and they were compiled in).
bool isa_available(Isa isa);

/// The set the ops use: the best available, or kPortable when OPCERT_CPU_ISA=portable.
Isa active_isa();

const char* isa_name(Isa isa);

/// The kernels of an available set.
F32Kernel f32_kernel(Isa isa);
I8Kernel i8_kernel(Isa isa);

// Provided by gemm_kernels_avx512.cpp; run.run is null when the unit was built without AVX-512.
F32Kernel avx512_f32_kernel();
I8Kernel avx512_vnni_i8_kernel();

}  // namespace opcert::cpu
