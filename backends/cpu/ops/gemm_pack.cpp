// Operand packing. Two access patterns cover every layout: depth-contiguous rows (A, B "nk"),
// packed as a transpose, and row-contiguous depth slices (B "kn"), packed as copies.
#include "ops/gemm_pack.h"

#include <opcert/backend_abi.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "ops/cpu_numeric.h"

namespace opcert::cpu {
namespace {

// Decoders of one stored element to fp32. Narrow formats use lookup tables built once.
struct LoadF32 {
  using Stored = float;
  float operator()(float v) const { return v; }
};
struct LoadBf16 {
  using Stored = uint16_t;
  float operator()(uint16_t v) const { return bf16_to_f32(v); }
};
struct LoadFp16 {
  using Stored = uint16_t;
  const float* table;
  float operator()(uint16_t v) const { return table[v]; }
};
struct LoadFp8 {
  using Stored = uint8_t;
  const float* table;
  float operator()(uint8_t v) const { return table[v]; }
};

const float* fp16_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (uint32_t i = 0; i < 65536; ++i) t[i] = fp16_to_f32(static_cast<uint16_t>(i));
    return t;
  }();
  return table.data();
}

const float* e4m3_table() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) t[i] = e4m3_to_f32(static_cast<uint8_t>(i));
    return t;
  }();
  return table.data();
}

const float* e5m2_table() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) t[i] = e5m2_to_f32(static_cast<uint8_t>(i));
    return t;
  }();
  return table.data();
}

template <class Load>
void pack_panels(const MatrixView& src, int64_t r0, int64_t rows, int64_t k0, int64_t kc, int32_t R, float* dst,
                 Load load) {
  using Stored = typename Load::Stored;
  const auto* base = static_cast<const Stored*>(src.data);
  for (int64_t p0 = 0; p0 < rows; p0 += R) {
    const int64_t live = std::min<int64_t>(R, rows - p0);
    float* panel = dst + (p0 / R) * kc * R;
    if (live < R) std::fill(panel, panel + kc * R, 0.0f);
    if (src.k_stride == 1) {
      // Depth-contiguous rows: read each row along k, write one column of the panel.
      for (int64_t r = 0; r < live; ++r) {
        const Stored* row = base + (r0 + p0 + r) * src.row_stride + k0;
        float* col = panel + r;
        for (int64_t k = 0; k < kc; ++k) col[k * R] = load(row[k]);
      }
    } else {
      // Row-contiguous depth slices: each k is a run of `live` consecutive elements.
      for (int64_t k = 0; k < kc; ++k) {
        const Stored* run = base + (k0 + k) * src.k_stride + (r0 + p0) * src.row_stride;
        float* out = panel + k * R;
        if (src.row_stride == 1) {
          for (int64_t r = 0; r < live; ++r) out[r] = load(run[r]);
        } else {
          for (int64_t r = 0; r < live; ++r) out[r] = load(run[r * src.row_stride]);
        }
      }
    }
  }
}

template <class Load>
void decode_strided(const MatrixView& src, int64_t first, int64_t step, int64_t count, float* dst, Load load) {
  const auto* p = static_cast<const typename Load::Stored*>(src.data) + first;
  if (step == 1) {
    for (int64_t i = 0; i < count; ++i) dst[i] = load(p[i]);
  } else {
    for (int64_t i = 0; i < count; ++i) dst[i] = load(p[i * step]);
  }
}

template <bool kOffset>
void pack_i8(const int8_t* src, int64_t ld, int64_t r0, int64_t rows, int64_t k0, int64_t kc, int32_t R,
             uint32_t* dst) {
  const int64_t kc4 = (kc + 3) / 4;
  constexpr uint32_t kZeroByte = kOffset ? 0x80u : 0x00u;
  constexpr uint32_t kZeroWord = kZeroByte * 0x01010101u;
  for (int64_t p0 = 0; p0 < rows; p0 += R) {
    const int64_t live = std::min<int64_t>(R, rows - p0);
    uint32_t* panel = dst + (p0 / R) * kc4 * R;
    if (live < R) std::fill(panel, panel + kc4 * R, kZeroWord);
    for (int64_t r = 0; r < live; ++r) {
      const int8_t* row = src + (r0 + p0 + r) * ld + k0;
      uint32_t* col = panel + r;
      const int64_t full = kc / 4;
      for (int64_t g = 0; g < full; ++g) {
        uint32_t w;
        std::memcpy(&w, row + 4 * g, 4);
        col[g * R] = kOffset ? w ^ 0x80808080u : w;  // x ^ 0x80 == x + 128 as a byte
      }
      if (full < kc4) {
        uint32_t w = kZeroWord;
        for (int64_t q = 0; q < kc - 4 * full; ++q) {
          const uint32_t byte = static_cast<uint8_t>(row[4 * full + q]) ^ kZeroByte;
          w = (w & ~(0xFFu << (8 * q))) | (byte << (8 * q));
        }
        col[full * R] = w;
      }
    }
  }
}

}  // namespace

void pack_f32_panels(const MatrixView& src, int64_t r0, int64_t rows, int64_t k0, int64_t kc, int32_t R, float* dst,
                     const F32Kernel& kernel) {
  const bool f32_fast = src.dtype == OPCERT_DTYPE_F32 && kernel.pack_f32 != nullptr;
  const Half16PackRows half_fast = src.dtype == OPCERT_DTYPE_BF16  ? kernel.pack_bf16
                                   : src.dtype == OPCERT_DTYPE_F16 ? kernel.pack_fp16
                                                                   : nullptr;
  if (src.k_stride == 1 && (f32_fast || half_fast != nullptr)) {
    for (int64_t p0 = 0; p0 < rows; p0 += R) {
      const int64_t live = std::min<int64_t>(R, rows - p0);
      const int64_t first = (r0 + p0) * src.row_stride + k0;
      float* panel = dst + (p0 / R) * kc * R;
      if (f32_fast)
        kernel.pack_f32(static_cast<const float*>(src.data) + first, src.row_stride, live, kc, R, panel);
      else
        half_fast(static_cast<const uint16_t*>(src.data) + first, src.row_stride, live, kc, R, panel);
    }
    return;
  }
  switch (src.dtype) {
    case OPCERT_DTYPE_F32: return pack_panels(src, r0, rows, k0, kc, R, dst, LoadF32{});
    case OPCERT_DTYPE_BF16: return pack_panels(src, r0, rows, k0, kc, R, dst, LoadBf16{});
    case OPCERT_DTYPE_F16: return pack_panels(src, r0, rows, k0, kc, R, dst, LoadFp16{fp16_table()});
    case OPCERT_DTYPE_F8_E4M3FN: return pack_panels(src, r0, rows, k0, kc, R, dst, LoadFp8{e4m3_table()});
    case OPCERT_DTYPE_F8_E5M2: return pack_panels(src, r0, rows, k0, kc, R, dst, LoadFp8{e5m2_table()});
    default: return;
  }
}

void decode_f32_strided(const MatrixView& src, int64_t first, int64_t step, int64_t count, float* dst) {
  switch (src.dtype) {
    case OPCERT_DTYPE_F32: return decode_strided(src, first, step, count, dst, LoadF32{});
    case OPCERT_DTYPE_BF16: return decode_strided(src, first, step, count, dst, LoadBf16{});
    case OPCERT_DTYPE_F16: return decode_strided(src, first, step, count, dst, LoadFp16{fp16_table()});
    case OPCERT_DTYPE_F8_E4M3FN: return decode_strided(src, first, step, count, dst, LoadFp8{e4m3_table()});
    case OPCERT_DTYPE_F8_E5M2: return decode_strided(src, first, step, count, dst, LoadFp8{e5m2_table()});
    default: return;
  }
}

void* scratch_bytes(std::size_t slot, std::size_t bytes) {
  struct Slot {
    AlignedBuffer<unsigned char> buffer;
    std::size_t capacity = 0;
  };
  thread_local std::vector<Slot> slots;
  if (slots.size() <= slot) slots.resize(slot + 1);
  Slot& s = slots[slot];
  if (s.capacity < bytes) {
    s.buffer = AlignedBuffer<unsigned char>();  // free first: the peak stays one buffer
    s.buffer = AlignedBuffer<unsigned char>(bytes);
    s.capacity = bytes;
  }
  return s.buffer.get();
}

void pack_i8_panels_offset(const int8_t* src, int64_t ld, int64_t r0, int64_t rows, int64_t k0, int64_t kc, int32_t R,
                           uint32_t* dst) {
  pack_i8<true>(src, ld, r0, rows, k0, kc, R, dst);
}

void pack_i8_panels_signed(const int8_t* src, int64_t ld, int64_t r0, int64_t rows, int64_t k0, int64_t kc, int32_t R,
                           uint32_t* dst) {
  pack_i8<false>(src, ld, r0, rows, k0, kc, R, dst);
}

}  // namespace opcert::cpu
