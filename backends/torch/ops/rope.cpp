// Rotary embedding with torch ops on views, as model code writes it: cos/sin gathered by
// position, the rotation in fp32, one cast back to the dtype; split-half (GPT-NeoX) rotates
// (x[i], x[i+R/2]), interleaved (GPT-J) rotates pairs (x[2i], x[2i+1]); dims [R, D) pass through.
// Operands: the SDK's parse_rope.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/rope.h>

#include <span>
#include <string>
#include <vector>

#include "tensor_bridge.h"
#include "torch_implementations.h"

namespace opcert::torch_backend {
namespace {

// One position per token, as int64 for index_select. Given positions are data, checked here
// against the table's P rows; implicit ones (0 .. S-1) were checked by the parser.
at::Tensor token_positions(const sdk::RopeOperands& r, const at::Tensor& q) {
  if (auto given = wrap(r.positions)) {
    const at::Tensor host = given->to(at::kCPU).contiguous();
    const std::span<const int32_t> values(host.data_ptr<int32_t>(), static_cast<std::size_t>(host.numel()));
    if (const std::string why = sdk::rope_positions_problem(r, values); !why.empty())
      throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, why);
    return given->to(at::kLong).reshape({-1});
  }
  // Without positions a token's position is its index within its sequence (s, or t for [T, H, D]).
  const std::vector<int64_t> tokens(q.sizes().begin(), q.sizes().end() - 2);
  const int64_t seq = tokens.back();
  return at::arange(seq, q.options().dtype(at::kLong)).repeat({q.dim() == 4 ? tokens.front() : 1});
}

// x [..., H, D] rotated with c, s [..., 1, R/2] (fp32).
at::Tensor rotate(const at::Tensor& x, const at::Tensor& c, const at::Tensor& s, int64_t r, bool interleaved) {
  const int64_t d = x.size(-1), half = r / 2;
  const at::Tensor xr = x.narrow(-1, 0, r).to(at::kFloat);
  at::Tensor rotated;
  if (interleaved) {
    std::vector<int64_t> pairs(xr.sizes().begin(), xr.sizes().end() - 1);
    pairs.insert(pairs.end(), {half, 2});
    const at::Tensor xp = xr.reshape(pairs);
    const at::Tensor x1 = xp.select(-1, 0), x2 = xp.select(-1, 1);
    rotated = at::stack({x1 * c - x2 * s, x2 * c + x1 * s}, -1).flatten(-2);
  } else {
    const at::Tensor x1 = xr.narrow(-1, 0, half), x2 = xr.narrow(-1, half, half);
    rotated = at::cat({x1 * c - x2 * s, x2 * c + x1 * s}, -1);
  }
  rotated = rotated.to(x.scalar_type());
  return r == d ? rotated : at::cat({rotated, x.narrow(-1, r, d - r)}, -1);
}

void run(const sdk::RopeOperands& operands) {
  const at::Tensor q = wrap(*operands.q);
  const at::Tensor cos = wrap(*operands.cos), sin = wrap(*operands.sin);
  const int64_t r = operands.rotary_dim;
  const bool interleaved = operands.style == sdk::RopeStyle::kInterleaved;
  const at::Tensor pos = token_positions(operands, q);
  std::vector<int64_t> table_shape(q.sizes().begin(), q.sizes().end() - 2);
  table_shape.insert(table_shape.end(), {1, r / 2});  // broadcast over heads
  const at::Tensor c = cos.index_select(0, pos).view(table_shape), s = sin.index_select(0, pos).view(table_shape);
  write_output(*operands.q_out, rotate(q, c, s, r, interleaved));
  if (auto k = wrap(operands.k)) write_output(*operands.k_out, rotate(*k, c, s, r, interleaved));
}

// torch has no rotary embedding op: the decomposition model code writes (HF transformers).
std::string library_call(const sdk::RopeOperands& r) {
  return std::string("decomposition: cos/sin index_select by position; ") +
         (r.style == sdk::RopeStyle::kInterleaved ? "interleaved pairs" : "rotate_half") +
         " in fp32, one cast back" + (r.k ? ", for q and k" : "");
}

std::vector<sdk::Implementation> rope_implementations() {
  return {sdk::checked_implementation({"torch.rope.native", "rope",
                                       "torch view ops, cos/sin gathered by position, fp32 rotation, one cast back",
                                       operand_device_type()},
                                      sdk::parse_rope, run, nullptr, library_call)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(TorchImplementations, "rope", rope_implementations)

}  // namespace opcert::torch_backend
