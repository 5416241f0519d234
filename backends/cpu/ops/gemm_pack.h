// Packing of GEMM operands into the panel layout the micro-kernels read (gemm_kernels.h).
// fp16, bf16 and fp8 are decoded to fp32 here, exactly, so every kernel is an fp32 kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#include "ops/gemm_kernels.h"

namespace opcert::cpu {

/// A GEMM operand seen as a logical [rows, depth] matrix (depth is K): element (r, k) is at
/// index r * row_stride + k * k_stride of `data`, stored as `dtype`. A and B of layout "nk"
/// have k_stride 1; B of layout "kn" ([K, N] in memory) has row_stride 1.
struct MatrixView {
  const void* data = nullptr;
  int32_t dtype = 0;
  int64_t row_stride = 0;
  int64_t k_stride = 1;
};

/// Packs rows [r0, r0 + rows) and depth [k0, k0 + kc) of `src` into ceil(rows / R) panels of
/// kc x R floats each (panel p at dst + p * kc * R; element (r, k) at k * R + r); rows past
/// `rows` are zero. dtype: fp32, fp16, bf16, fp8_e4m3fn or fp8_e5m2.
/// `kernel` may supply faster packing of depth-contiguous fp32 / bf16 rows.
void pack_f32_panels(const MatrixView& src, int64_t r0, int64_t rows, int64_t k0, int64_t kc, int32_t R, float* dst,
                     const F32Kernel& kernel);

/// Decodes `count` elements of src to fp32: element indices first, first + step, ... (a row of
/// the logical matrix: step = k_stride; a run across rows at one k: step = row_stride).
void decode_f32_strided(const MatrixView& src, int64_t first, int64_t step, int64_t count, float* dst);

/// Packs int8 rows as the int8 micro-kernel's A operand: ceil(rows / R) panels of ceil(kc / 4)
/// x R words; each word holds 4 consecutive-k bytes stored as uint8 (a + 128). Padding (rows
/// past `rows`, k past kc) holds the code of 0. src: row-major [*, ld] int8.
void pack_i8_panels_offset(const int8_t* src, int64_t ld, int64_t r0, int64_t rows, int64_t k0, int64_t kc, int32_t R,
                           uint32_t* dst);

/// As pack_i8_panels_offset, without the offset: the B operand (signed bytes, padding 0).
void pack_i8_panels_signed(const int8_t* src, int64_t ld, int64_t r0, int64_t rows, int64_t k0, int64_t kc, int32_t R,
                           uint32_t* dst);

/// A 64-byte aligned scratch array (packed panels, accumulator tiles).
template <class T>
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t count)
      : data_(static_cast<T*>(::operator new[]((count == 0 ? 1 : count) * sizeof(T), std::align_val_t{64}))) {}
  T* get() const { return data_.get(); }

 private:
  struct Free {
    void operator()(T* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  std::unique_ptr<T, Free> data_;
};

/// Scratch memory of the calling thread, kept between calls so that a GEMM does not allocate
/// and page-fault fresh buffers every time: at least `count` elements, 64-byte aligned, valid
/// until the same thread asks for the same slot again.
void* scratch_bytes(std::size_t slot, std::size_t bytes);
template <class T>
T* scratch(std::size_t slot, std::size_t count) {
  return static_cast<T*>(scratch_bytes(slot, count * sizeof(T)));
}

}  // namespace opcert::cpu
