// cpu.rms_norm.fused and cpu.layer_norm.fused (docs/OPS.md "rms_norm", "layer_norm"):
// residual add, statistics and scaling fused in one visit of each row, OpenMP over rows.
#include <omp.h>

#include <optional>
#include <type_traits>
#include <vector>

#include "ops/cpu_ops.h"
#include "ops/cpu_vector.h"
#include "ops/cpu_vector_operands.h"
#include "ops/norm_rows.h"

namespace opcert::cpu {
namespace {

using namespace vec;

enum class Kind { rms, layer };

const char* op_name(Kind kind) { return kind == Kind::rms ? "rms_norm" : "layer_norm"; }

/// The operands of one call, checked against the contract.
struct NormCall {
  sdk::Tensor x;
  sdk::Tensor y;
  std::optional<sdk::Tensor> weight, bias, residual, residual_out;
  int64_t rows = 0;
  int64_t hidden = 0;
  float eps = 0.0f;
};

NormCall check_norm(const sdk::OpCall& call, Kind kind) {
  NormCall n{call.input("x"), call.output("y")};
  require_dense(n.x);
  // docs/OPS.md writes x as [T, H]; a leading batch of any rank is accepted as more rows.
  require(n.x.ndim() >= 1, std::string(op_name(kind)) + " input 'x' must have rank >= 1, got " + shape_string(n.x));
  n.hidden = n.x.dim(-1);
  n.rows = n.hidden == 0 ? 0 : n.x.numel() / n.hidden;
  require_like(n.y, n.x);
  n.weight = call.find_input("weight");
  if (n.weight) require_vector(*n.weight, n.hidden, n.x.dtype());
  n.bias = call.find_input("bias");
  require(!n.bias || kind == Kind::layer, "rms_norm has no input 'bias'");
  if (n.bias) require_vector(*n.bias, n.hidden, n.x.dtype());
  n.residual = call.find_input("residual");
  n.residual_out = call.find_output("residual_out");
  require(n.residual.has_value() == n.residual_out.has_value(),
          "output 'residual_out' is required exactly when input 'residual' is given");
  if (n.residual) {
    require_like(*n.residual, n.x);
    require_like(*n.residual_out, n.x);
  }
  n.eps = static_cast<float>(call.get_float("eps", kind == Kind::rms ? 1e-6 : 1e-5));
  return n;
}

template <class T>
const T* data_or_null(const std::optional<sdk::Tensor>& t) {
  return t ? t->data<const T>() : nullptr;
}

template <class T>
void norm_rows(const NormCall& n, Kind kind) {
  if (n.rows == 0) return;
  const int64_t h = n.hidden;
  const bool parallel = n.rows > 1 && n.rows * h >= (1 << 14);
  const int threads = parallel ? omp_get_max_threads() : 1;
  std::vector<float> scratch(static_cast<std::size_t>(threads) * h);
  const T* x = n.x.data<const T>();
  const T* res = data_or_null<T>(n.residual);
  T* y = n.y.data<T>();
  T* res_out = n.residual_out ? n.residual_out->data<T>() : nullptr;
#pragma omp parallel for schedule(static) if (parallel) num_threads(threads)
  for (int64_t t = 0; t < n.rows; ++t) {
    norm::Row<T> row;
    row.x = x + t * h;
    row.residual = res ? res + t * h : nullptr;
    row.residual_out = res_out ? res_out + t * h : nullptr;
    row.weight = data_or_null<T>(n.weight);
    row.bias = data_or_null<T>(n.bias);
    row.y = y + t * h;
    float* mine = scratch.data() + static_cast<std::size_t>(omp_get_thread_num()) * h;
    if (kind == Kind::rms)
      norm::rms_norm_row<T>(row, mine, h, n.eps);
    else
      norm::layer_norm_row<T>(row, mine, h, n.eps);
  }
}

sdk::Implementation make_norm(Kind kind) {
  sdk::Implementation impl;
  impl.op = op_name(kind);
  impl.key = std::string("cpu.") + impl.op + ".fused";
  impl.description = std::string(impl.op) + " with optional fused residual add, fp32 math, OpenMP over rows";
  impl.query = [kind](const sdk::OpCall& call) {
    const sdk::Support dtype = float_dtype_support(call.input("x"));
    if (!dtype.supported) return dtype;
    check_norm(call, kind);
    return sdk::Support::yes();
  };
  impl.run = [kind](const sdk::OpCall& call) {
    const NormCall n = check_norm(call, kind);
    with_float_type(n.x.dtype(), [&](auto tag) { norm_rows<decltype(tag)>(n, kind); });
  };
  return impl;
}

}  // namespace

std::vector<sdk::Implementation> norm_implementations() { return {make_norm(Kind::rms), make_norm(Kind::layer)}; }

}  // namespace opcert::cpu
