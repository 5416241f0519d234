// toy_scale's operand contract, the one place its operands are spelled, as an op's SDK header
// (backends/sdk/include/opcert/sdk/ops/<op>.h) is for a shipped op: the names and the default the
// harness's case builder and reference use (toy_scale_spec.cpp, toy_scale_reference.cpp), and the
// parser every implementation reads a call with (toy_scale_cpu.cpp, toy_plugin.cpp). It sees only
// the SDK, as a backend does.
#pragma once

#include <opcert/sdk/call_check.h>

#include <optional>

namespace opcert::sdk {

/// The names a toy_scale call is made of.
namespace toy_scale_names {
inline constexpr const char* kOp = "toy_scale";
inline constexpr const char* kX = "x";          // input [n], fp32 or bf16
inline constexpr const char* kY = "y";          // output, x's shape and dtype
inline constexpr const char* kAlpha = "alpha";  // float attribute, optional
inline constexpr double kDefaultAlpha = 2.0;
}  // namespace toy_scale_names

struct ToyScaleOperands {
  std::optional<Tensor> x{}, y{};
  float alpha = static_cast<float>(toy_scale_names::kDefaultAlpha);
};

/// Reads and checks a toy_scale call; the first problem is recorded in `check`.
inline ToyScaleOperands parse_toy_scale(const OpCall& call, CallCheck& check) {
  using namespace toy_scale_names;
  ToyScaleOperands s;
  check.only_attributes({kAlpha});
  s.x = check.input(kX);
  s.y = check.output(kY);
  if (!check.ok()) return s;
  check.dtype(*s.x, {OPCERT_DTYPE_F32, OPCERT_DTYPE_BF16});
  if (!check.ok()) return s;
  check.like(*s.y, *s.x);
  s.alpha = static_cast<float>(call.get_float(kAlpha, kDefaultAlpha));
  return s;
}

}  // namespace opcert::sdk
