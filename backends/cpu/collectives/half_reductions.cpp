#include "collectives/half_reductions.h"

#include <algorithm>
#include <array>

#include "ops/cpu_numeric.h"

namespace opcert::cpu {
namespace {

template <float (*Decode)(uint16_t), uint16_t (*Encode)(float), int Kind>
void combine(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const uint16_t*>(in);
  auto* b = static_cast<uint16_t*>(inout);
  for (int i = 0; i < *len; ++i) {
    const float x = Decode(a[i]), y = Decode(b[i]);
    const float r = Kind == 0 ? x + y : Kind == 1 ? std::max(x, y) : std::min(x, y);
    b[i] = Encode(r);
  }
}

MPI_Op create(MPI_User_function* fn) {
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(fn, /*commute=*/1, &op);
  return op;
}

int kind_of(Reduction r) { return r == Reduction::kMax ? 1 : r == Reduction::kMin ? 2 : 0; }

}  // namespace

MPI_Op half_reduction(int32_t dtype, Reduction r) {
  // [dtype][sum, max, min]; created on first use, after MPI_Init, and kept for the process.
  static const std::array<std::array<MPI_Op, 3>, 2> ops = [] {
    return std::array<std::array<MPI_Op, 3>, 2>{{
        {create(combine<fp16_to_f32, f32_to_fp16, 0>), create(combine<fp16_to_f32, f32_to_fp16, 1>),
         create(combine<fp16_to_f32, f32_to_fp16, 2>)},
        {create(combine<bf16_to_f32, f32_to_bf16, 0>), create(combine<bf16_to_f32, f32_to_bf16, 1>),
         create(combine<bf16_to_f32, f32_to_bf16, 2>)},
    }};
  }();
  return ops[dtype == OPCERT_DTYPE_BF16 ? 1 : 0][static_cast<std::size_t>(kind_of(r))];
}

uint16_t half_divide(int32_t dtype, uint16_t bits, int n) {
  if (dtype == OPCERT_DTYPE_BF16) return f32_to_bf16(bf16_to_f32(bits) / static_cast<float>(n));
  return f32_to_fp16(fp16_to_f32(bits) / static_cast<float>(n));
}

}  // namespace opcert::cpu
