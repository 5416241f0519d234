// Register-tile micro-kernels of the CPU GEMMs and the choice between instruction sets.
//
// A micro-kernel multiplies one packed A panel (MR rows) by one packed B panel (NR columns) over
// a K slice and updates an MR x NR tile of a row-major accumulator. Packing (gemm_pack.h) pads
// panels to full MR / NR, so a kernel always computes and writes the full tile.
//
// The AVX-512 kernels live in gemm_kernels_avx512.cpp and the AVX512-BF16 ones in
// gemm_kernels_avx512_bf16.cpp, each compiled with its ISA flags; those units include nothing but
// this header, gemm_avx512_common.h and <immintrin.h>, so none of their code can replace portable
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
/// fast paths of the packing (gemm_pack.cpp) for fp32 and 16-bit (bf16, fp16) sources.
using F32PackRows = void (*)(const float* src, int64_t ld, int64_t rows, int64_t kc, int32_t R, float* dst);
using Half16PackRows = void (*)(const uint16_t* src, int64_t ld, int64_t rows, int64_t kc, int32_t R, float* dst);

/// Rounds n fp32 values once to bf16 or fp16 bits, to nearest even, exactly as the SDK's
/// f32_to_bf16 / f32_to_fp16 (NaN as their NaN): optional fast paths of the GEMM epilogues.
using Half16StoreRun = void (*)(const float* values, int64_t n, uint16_t* dst);

struct F32Kernel {
  int32_t mr;
  int32_t nr;
  F32MicroKernel run;
  F32DotRows dot_rows;
  F32PackRows pack_f32 = nullptr;      // null: the portable packing
  Half16PackRows pack_bf16 = nullptr;  // null: the portable packing
  Half16PackRows pack_fp16 = nullptr;  // null: the portable packing (a table per element)
  Half16StoreRun store_bf16 = nullptr;  // null: store_f32_run
  Half16StoreRun store_fp16 = nullptr;  // null: store_f32_run
};

struct I8Kernel {
  int32_t mr;
  int32_t nr;
  I8MicroKernel run;
  I8DotRows dot_rows;
};

/// bf16 pair micro-kernel (vdpbf16ps): a: kc2 x MR words, b: kc2 x NR words, each word two
/// consecutive-k bf16 values (the even k in the low half); otherwise as F32MicroKernel. It is
/// an fp32 sum of exact products only where pair_products_exact() holds (gemm_pack_pairs.h).
using PairMicroKernel = void (*)(int64_t kc2, const uint32_t* a, const uint32_t* b, float* c, int64_t ldc,
                                 TileUpdate update, const float* row_scale, const float* col_scale);

/// bf16 dot products of one vector with up to kDotRowsMax rows, as F32DotRows on bf16 operands;
/// returns b's least nonzero magnitude (bits & 0x7FFF; 0 when b is all zeros) for the exactness
/// check. The rows of a must have no subnormals either (the caller checks them once).
using Bf16DotRows = uint16_t (*)(const uint16_t* a, int64_t lda, int64_t rows, const uint16_t* b, int64_t n,
                                 float* out);

/// Packs `rows` (<= R) depth-contiguous bf16 rows into one kc2 x R pair panel (pair q of row i,
/// elements 2q and 2q + 1, at dst[q * R + i]; rows past `rows` and k past kc are zero); returns
/// the least nonzero magnitude packed, as Bf16DotRows does.
using Bf16PackPairRows = uint16_t (*)(const uint16_t* src, int64_t ld, int64_t rows, int64_t kc, int32_t R,
                                      uint32_t* dst);

struct PairKernel {
  int32_t mr = 0;
  int32_t nr = 0;
  PairMicroKernel run = nullptr;  // null: no pair kernel on this CPU; use the F32Kernel
  Bf16DotRows dot_rows = nullptr;
  Bf16PackPairRows pack_bf16 = nullptr;
};

/// The instruction sets the GEMMs have kernels for. kAvx512Bf16 is kAvx512 plus the AVX512-BF16
/// pair kernel for operands bf16 holds exactly (bf16, fp8); fp32 and fp16 run as on kAvx512.
enum class Isa : int32_t { kPortable = 0, kAvx512 = 1, kAvx512Bf16 = 2 };

/// True when this CPU can run kernels of `isa` (and they were compiled in).
bool isa_available(Isa isa);

/// The set the ops use: the best available, capped by OPCERT_CPU_ISA (portable, avx512 or
/// avx512-bf16; unset or anything else: no cap).
Isa active_isa();

const char* isa_name(Isa isa);

/// The kernels of an available set.
F32Kernel f32_kernel(Isa isa);
I8Kernel i8_kernel(Isa isa);
/// The pair kernel of `isa`; its run is null below kAvx512Bf16 (the caller takes f32_kernel).
PairKernel pair_kernel(Isa isa);

// Provided by gemm_kernels_avx512.cpp; run.run is null when the unit was built without AVX-512.
F32Kernel avx512_f32_kernel();
I8Kernel avx512_vnni_i8_kernel();
// Provided by gemm_kernels_avx512_bf16.cpp; run is null when built without AVX512-BF16.
PairKernel avx512_bf16_pair_kernel();

}  // namespace opcert::cpu
