#include "ops/cpu_numeric.h"

namespace opcert::cpu {
namespace {

template <class Stored, class Encode>
void store_run(void* dst, int64_t offset, const float* values, int64_t n, Encode encode) {
  Stored* out = static_cast<Stored*>(dst) + offset;
  for (int64_t i = 0; i < n; ++i) out[i] = encode(values[i]);
}

template <class Stored, class Decode>
void load_run(const void* src, int64_t offset, float* values, int64_t n, Decode decode) {
  const Stored* in = static_cast<const Stored*>(src) + offset;
  for (int64_t i = 0; i < n; ++i) values[i] = decode(in[i]);
}

}  // namespace

void store_f32_run(int32_t dtype, void* dst, int64_t offset, const float* values, int64_t n) {
  switch (dtype) {
    case OPCERT_DTYPE_F32: return store_run<float>(dst, offset, values, n, [](float v) { return v; });
    case OPCERT_DTYPE_F16: return store_run<uint16_t>(dst, offset, values, n, f32_to_fp16);
    case OPCERT_DTYPE_BF16: return store_run<uint16_t>(dst, offset, values, n, f32_to_bf16);
    case OPCERT_DTYPE_F8_E4M3FN: return store_run<uint8_t>(dst, offset, values, n, f32_to_e4m3);
    case OPCERT_DTYPE_F8_E5M2: return store_run<uint8_t>(dst, offset, values, n, f32_to_e5m2);
    default: return;
  }
}

void load_f32_run(int32_t dtype, const void* src, int64_t offset, float* values, int64_t n) {
  switch (dtype) {
    case OPCERT_DTYPE_F32: return load_run<float>(src, offset, values, n, [](float v) { return v; });
    case OPCERT_DTYPE_F16: return load_run<uint16_t>(src, offset, values, n, fp16_to_f32);
    case OPCERT_DTYPE_BF16: return load_run<uint16_t>(src, offset, values, n, bf16_to_f32);
    case OPCERT_DTYPE_F8_E4M3FN: return load_run<uint8_t>(src, offset, values, n, e4m3_to_f32);
    case OPCERT_DTYPE_F8_E5M2: return load_run<uint8_t>(src, offset, values, n, e5m2_to_f32);
    default: return;
  }
}

}  // namespace opcert::cpu
