// rope: rotary position embedding, split-half or interleaved, partial rotary dim
// (docs/OPS.md#rope). Magnitudes: |x1*c| + |x2*s| (resp. |x2*c| + |x1*s|) for rotated slots,
// |x| for the slots copied unchanged.
#include <fmt/format.h>

#include <stdexcept>

#include "model/attr.h"
#include "ops/rope/rope.h"
#include "reference/reference_support.h"

namespace opcert::ops::rope {
namespace {

using namespace reference_detail;

struct RopeSetup {
  const HostTensor* cos = nullptr;
  const HostTensor* sin = nullptr;
  std::vector<int64_t> positions;  // per token; empty: derived from the token index
  int64_t seq_len = 0;             // S for [B, S, H, D]; 0 for [T, H, D]
  int64_t table_rows = 0;          // P
  int64_t rotary_dim = 0;          // R
  bool interleaved = false;
};

int64_t position_of(const RopeSetup& r, int64_t token) {
  const int64_t p = !r.positions.empty() ? r.positions[static_cast<std::size_t>(token)]
                                         : (r.seq_len > 0 ? token % r.seq_len : token);
  if (p < 0 || p >= r.table_rows)
    throw std::invalid_argument(fmt::format("rope: position {} of token {} lies outside [0, {})", p, token, r.table_rows));
  return p;
}

// The two halves of each rotated pair as views into x ([n, D]).
std::pair<at::Tensor, at::Tensor> pair_views(const at::Tensor& x, const RopeSetup& r) {
  const int64_t half = r.rotary_dim / 2;
  if (r.interleaved) {
    const at::Tensor pairs = x.narrow(1, 0, r.rotary_dim).view({x.size(0), half, 2});
    return {pairs.select(2, 0), pairs.select(2, 1)};
  }
  return {x.narrow(1, 0, half), x.narrow(1, half, half)};
}

RowBlock rotate(const at::Tensor& x, const at::Tensor& c, const at::Tensor& s, const RopeSetup& r) {
  at::Tensor values = x.clone();
  at::Tensor magnitude = x.abs();
  const auto [x1, x2] = pair_views(x, r);
  auto [v1, v2] = pair_views(values, r);
  auto [m1, m2] = pair_views(magnitude, r);
  v1.copy_(x1 * c - x2 * s);
  v2.copy_(x2 * c + x1 * s);
  m1.copy_((x1 * c).abs() + (x2 * s).abs());
  m2.copy_((x2 * c).abs() + (x1 * s).abs());
  return {values, magnitude, at::Tensor()};
}

ReferenceOutput rope_output(const Case& c, const HostTensor& x, const std::string& out_name, const RopeSetup& r,
                            const SamplePlan& plan) {
  const TensorSpec& spec = require_output(c, out_name);
  if (spec.shape != x.spec.shape)
    throw std::invalid_argument(fmt::format("rope: output '{}' must have the shape of '{}'", out_name, x.spec.name));
  const int64_t heads = x.spec.shape[x.spec.shape.size() - 2];
  const int64_t d = x.spec.shape.back();
  if (r.rotary_dim > d) throw std::invalid_argument(fmt::format("rope: rotary_dim {} exceeds the head dim {}", r.rotary_dim, d));
  const int64_t numel = x.spec.numel();
  const auto* sample = sampled(plan, out_name, numel);
  const std::vector<int64_t> rows = rows_needed(sample, std::max<int64_t>(d, 1), d == 0 ? 0 : numel / d);
  RowCollector out(rows, d, false, sample);
  for_row_chunks(rows, d, [&](int64_t first, std::span<const int64_t> chunk) {
    std::vector<int64_t> positions(chunk.size());
    for (std::size_t i = 0; i < chunk.size(); ++i) positions[i] = position_of(r, chunk[i] / heads);
    const at::Tensor cos = gather_rows(*r.cos, r.rotary_dim / 2, positions);
    const at::Tensor sin = gather_rows(*r.sin, r.rotary_dim / 2, positions);
    out.put_range(first, rotate(gather_rows(x, d, chunk), cos, sin, r));
  });
  return out.emit(out_name, numel);
}

std::vector<ReferenceOutput> reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  const HostTensor& q = require_input(inputs, c.op, names::kQ);
  const HostTensor* k = optional_input(inputs, names::kK);
  const std::size_t rank = q.spec.shape.size();
  if (rank != 3 && rank != 4) throw std::invalid_argument("rope: 'q' must be [B, S, H, D] or [T, H, D]");
  const int64_t d = q.spec.shape.back();
  const std::vector<int64_t> tokens_shape(q.spec.shape.begin(), q.spec.shape.end() - 2);
  if (k != nullptr) {
    require_rank(*k, c.op, rank);
    if (std::vector<int64_t>(k->spec.shape.begin(), k->spec.shape.end() - 2) != tokens_shape || k->spec.shape.back() != d)
      throw std::invalid_argument("rope: 'k' must share the token dimensions and head dim of 'q'");
  }

  RopeSetup r;
  const std::string style = attr_string(c.attrs, names::kStyle, "split_half");
  if (style != "split_half" && style != "interleaved")
    throw std::invalid_argument("rope: style must be \"split_half\" or \"interleaved\", got \"" + style + "\"");
  r.interleaved = style == "interleaved";
  r.rotary_dim = attr_int(c.attrs, names::kRotaryDim, d);
  if (r.rotary_dim < 0 || r.rotary_dim % 2 != 0)
    throw std::invalid_argument(fmt::format("rope: rotary_dim must be even and non-negative, got {}", r.rotary_dim));
  r.cos = &require_input(inputs, c.op, names::kCos);
  r.sin = &require_input(inputs, c.op, names::kSin);
  require_rank(*r.cos, c.op, 2);
  r.table_rows = r.cos->spec.shape[0];
  require_shape(*r.cos, c.op, {r.table_rows, r.rotary_dim / 2});
  require_shape(*r.sin, c.op, {r.table_rows, r.rotary_dim / 2});
  if (const HostTensor* positions = optional_input(inputs, names::kPositions)) {
    require_shape(*positions, c.op, tokens_shape);
    r.positions = integer_values(*positions);
  }
  r.seq_len = rank == 4 ? q.spec.shape[1] : 0;

  std::vector<ReferenceOutput> out{rope_output(c, q, names::kQOut, r, plan)};
  if (k != nullptr) out.push_back(rope_output(c, *k, names::kKOut, r, plan));
  return out;
}

}  // namespace

OPCERT_REGISTER_REFERENCE(names::kOp, reference)

}  // namespace opcert::ops::rope
