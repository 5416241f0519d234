// cpu.rms_norm.fused and cpu.layer_norm.fused (docs/OPS.md "rms_norm", "layer_norm"; operands
// read by the SDK's parse_rms_norm / parse_layer_norm): residual add, statistics and scaling fused
// in one visit of each row, OpenMP over rows.
#include <omp.h>
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/layer_norm.h>
#include <opcert/sdk/ops/rms_norm.h>

#include <optional>
#include <type_traits>
#include <vector>

#include "cpu_implementations.h"
#include "ops/cpu_vector.h"
#include "ops/norm_rows.h"

namespace opcert::cpu {
namespace {

using namespace vec;

template <class T>
const T* data_or_null(const std::optional<sdk::Tensor>& t) {
  return t ? t->data<const T>() : nullptr;
}

template <class T>
void norm_rows(const sdk::NormOperands& n) {
  if (n.t == 0 || n.h == 0) return;
  const int64_t h = n.h;
  const float eps = static_cast<float>(n.eps);
  const bool parallel = n.t > 1 && n.t * h >= (1 << 14);
  const int threads = parallel ? omp_get_max_threads() : 1;
  std::vector<float> scratch(static_cast<std::size_t>(threads) * h);
  const T* x = n.x->data<const T>();
  const T* res = data_or_null<T>(n.residual);
  T* y = n.y->data<T>();
  T* res_out = n.residual_out ? n.residual_out->data<T>() : nullptr;
#pragma omp parallel for schedule(static) if (parallel) num_threads(threads)
  for (int64_t t = 0; t < n.t; ++t) {
    norm::Row<T> row;
    row.x = x + t * h;
    row.residual = res ? res + t * h : nullptr;
    row.residual_out = res_out ? res_out + t * h : nullptr;
    row.weight = data_or_null<T>(n.weight);
    row.bias = data_or_null<T>(n.bias);
    row.y = y + t * h;
    float* mine = scratch.data() + static_cast<std::size_t>(omp_get_thread_num()) * h;
    if (n.kind == sdk::NormKind::kRms)
      norm::rms_norm_row<T>(row, mine, h, eps);
    else
      norm::layer_norm_row<T>(row, mine, h, eps);
  }
}

void compute(const sdk::NormOperands& n) {
  with_float_type(n.dtype, [&](auto tag) { norm_rows<decltype(tag)>(n); });
}

constexpr const char* kDescription = "with optional fused residual add, fp32 math, OpenMP over rows";

std::vector<sdk::Implementation> norm_implementations() {
  return {sdk::checked_implementation({"cpu.rms_norm.fused", "rms_norm", std::string("rms_norm ") + kDescription},
                                      sdk::parse_rms_norm, compute),
          sdk::checked_implementation({"cpu.layer_norm.fused", "layer_norm", std::string("layer_norm ") + kDescription},
                                      sdk::parse_layer_norm, compute)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CpuImplementations, "norm", norm_implementations)

}  // namespace opcert::cpu
