// What rms_norm and layer_norm share (docs/OPS.md "rms_norm", "layer_norm"): x [T, H] in fp32,
// fp16 or bf16; optional weight [H], bias [H] (layer_norm only) and residual [T, H]; y [T, H];
// residual_out [T, H] exactly when residual is given; everything in x's dtype; attribute eps.
// The two ops' parsers are parse_rms_norm (rms_norm.h) and parse_layer_norm (layer_norm.h).
#pragma once

#include <opcert/sdk/call_check.h>

#include <cstdint>
#include <optional>

namespace opcert::sdk {

/// The names a norm call is made of (rms_norm_names and layer_norm_names add the op's): the one
/// spelling of its operands and attributes, which the harness's op folders build their cases with
/// and parse_norm reads.
namespace norm_names {
inline constexpr const char* kX = "x";                       // input [T, H]
inline constexpr const char* kWeight = "weight";             // optional input [H]
inline constexpr const char* kBias = "bias";                 // optional input [H], layer_norm only
inline constexpr const char* kResidual = "residual";         // optional input [T, H]
inline constexpr const char* kY = "y";                       // output [T, H]
inline constexpr const char* kResidualOut = "residual_out";  // output [T, H], exactly when residual is given
inline constexpr const char* kEps = "eps";                   // attribute
}  // namespace norm_names

enum class NormKind { kRms, kLayer };

struct NormOperands {
  std::optional<Tensor> x{}, weight{}, bias{}, residual{}, y{}, residual_out{};
  NormKind kind = NormKind::kRms;
  int32_t dtype = OPCERT_DTYPE_INVALID;  // of every operand
  int64_t t = 0, h = 0;                  // rows (tokens) and the normalised dimension
  double eps = 0.0;                      // 1e-6 (rms_norm) or 1e-5 (layer_norm) unless given
};

/// The catalogue name of a norm: "rms_norm" or "layer_norm".
inline const char* norm_name(NormKind kind) { return kind == NormKind::kRms ? "rms_norm" : "layer_norm"; }

/// Reads and checks a norm call's operands; the first problem is recorded in `check`.
inline NormOperands parse_norm(const OpCall& call, CallCheck& check, NormKind kind) {
  NormOperands n;
  check.only_attributes({norm_names::kEps});
  n.kind = kind;
  n.x = check.input(norm_names::kX);
  n.weight = check.input(norm_names::kWeight, false);
  n.bias = check.input(norm_names::kBias, false);
  n.residual = check.input(norm_names::kResidual, false);
  n.y = check.output(norm_names::kY);
  n.residual_out = check.output(norm_names::kResidualOut, false);
  // An operand the op does not define would be silently dropped: refused instead.
  check.require(!n.bias || kind == NormKind::kLayer, "rms_norm has no input 'bias' (layer_norm has)");
  if (n.residual.has_value() != n.residual_out.has_value())
    check.require(false, n.residual ? "missing output 'residual_out' (required with input 'residual')"
                                    : "output 'residual_out' is given without input 'residual'");
  n.eps = float_attr(check, call, norm_names::kEps, kind == NormKind::kRms ? 1e-6 : 1e-5);
  if (!check.ok()) return n;
  check.dtype(*n.x, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  n.dtype = n.x->dtype();
  if (!check.ok() || !check.rank(*n.x, 2, "[T, H]")) return n;
  n.t = n.x->dim(0);
  n.h = n.x->dim(1);
  check.like(*n.y, *n.x);
  for (const auto& vector : {n.weight, n.bias})
    if (vector) {
      check.shape(*vector, {n.h}, "[H]");
      check.same_dtype(*vector, *n.x);
    }
  for (const auto& full : {n.residual, n.residual_out})
    if (full) check.like(*full, *n.x);
  return n;
}

}  // namespace opcert::sdk
