// Rotary embedding with torch ops on views, as model code writes it: cos/sin gathered by
// position, the rotation in fp32, one cast back to the dtype; split-half (GPT-NeoX) rotates
// (x[i], x[i+R/2]), interleaved (GPT-J) rotates pairs (x[2i], x[2i+1]); dims [R, D) pass through.
#include "ops/query_checks.h"
#include "ops/torch_ops.h"
#include "tensor_bridge.h"

namespace opcert::torch_backend {
namespace {

using namespace checks;

std::vector<int64_t> token_shape(const sdk::Tensor& t) {
  return std::vector<int64_t>(t.shape().begin(), t.shape().end() - 2);
}

sdk::Support query(const sdk::OpCall& call) {
  const sdk::Tensor q = call.input("q"), q_out = call.output("q_out");
  const sdk::Tensor cos = call.input("cos"), sin = call.input("sin");
  const std::string style = call.get_string("style", "split_half");
  if (style != "split_half" && style != "interleaved")
    return sdk::Support::no("style '" + style + "' is neither split_half nor interleaved");
  if (q.ndim() != 3 && q.ndim() != 4) return sdk::Support::no("'q' must be [B, S, H, D] or [T, H, D]");
  if (auto s = all_of({dtype_in(q, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16}), same_dtype(q, q_out),
                       shape_is(q_out, std::vector<int64_t>(q.shape().begin(), q.shape().end())),
                       dtype_in(cos, {OPCERT_DTYPE_F32}), dtype_in(sin, {OPCERT_DTYPE_F32}), rank_is(cos, 2)});
      !s.supported)
    return s;
  const int64_t d = q.dim(-1), r = call.get_int("rotary_dim", d);
  if (r <= 0 || r % 2 != 0 || r > d) return sdk::Support::no("rotary_dim " + std::to_string(r) + " must be even and in (0, D]");
  auto k = call.find_input("k"), k_out = call.find_output("k_out"), pos = call.find_input("positions");
  if (k.has_value() != k_out.has_value()) return sdk::Support::no("k and k_out come together");
  if (k) {
    if (k->ndim() != q.ndim()) return sdk::Support::no("'k' and 'q' differ in rank");
    std::vector<int64_t> k_shape = token_shape(q);
    k_shape.insert(k_shape.end(), {k->dim(-2), d});
    if (auto s = all_of({same_dtype(q, *k), same_dtype(q, *k_out), shape_is(*k, k_shape), shape_is(*k_out, k_shape)});
        !s.supported)
      return s;
  }
  return all_of({shape_is(sin, {cos.dim(0), r / 2}), shape_is(cos, {cos.dim(0), r / 2}),
                 pos ? dtype_in(*pos, {OPCERT_DTYPE_I32}) : "", pos ? shape_is(*pos, token_shape(q)) : ""});
}

// One position per token, as int64 for index_select; checked against the table's P rows.
at::Tensor token_positions(const sdk::OpCall& call, const at::Tensor& q, int64_t table_rows) {
  const std::vector<int64_t> tokens(q.sizes().begin(), q.sizes().end() - 2);
  at::Tensor pos;
  if (auto given = wrap_input(call, "positions")) {
    pos = given->to(at::kLong).reshape({-1});
  } else {
    // Without positions a token's position is its index within its sequence (s, or t for [T, H, D]).
    const int64_t seq = tokens.back();
    pos = at::arange(seq, q.options().dtype(at::kLong)).repeat({q.dim() == 4 ? tokens.front() : 1});
  }
  if (pos.numel() > 0) {
    const int64_t lo = pos.min().item<int64_t>(), hi = pos.max().item<int64_t>();
    if (lo < 0 || hi >= table_rows)
      throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "position " + std::to_string(lo < 0 ? lo : hi) + " outside [0, " +
                                                          std::to_string(table_rows) + ")");
  }
  return pos;
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

void run(const sdk::OpCall& call) {
  const at::Tensor q = wrap(call.input("q"));
  const at::Tensor cos = wrap(call.input("cos")), sin = wrap(call.input("sin"));
  const int64_t r = call.get_int("rotary_dim", q.size(-1));
  const bool interleaved = call.get_string("style", "split_half") == "interleaved";
  const at::Tensor pos = token_positions(call, q, cos.size(0));
  std::vector<int64_t> table_shape(q.sizes().begin(), q.sizes().end() - 2);
  table_shape.insert(table_shape.end(), {1, r / 2});  // broadcast over heads
  const at::Tensor c = cos.index_select(0, pos).view(table_shape), s = sin.index_select(0, pos).view(table_shape);
  write_output(call.output("q_out"), rotate(q, c, s, r, interleaved));
  if (auto k = wrap_input(call, "k")) write_output(call.output("k_out"), rotate(*k, c, s, r, interleaved));
}

}  // namespace

std::vector<sdk::Implementation> rope_implementations() {
  return {{"torch.rope.native", "rope", "torch view ops, cos/sin gathered by position, fp32 rotation, one cast back", query,
           run}};
}

}  // namespace opcert::torch_backend
