// attention's work (docs/OPS.md "Work model"): per allowed (query, key) pair and query head, D
// multiply-adds for q·k and D for p·v, judged by TFLOP/s at the inputs' dtype.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "model/dtype.h"
#include "ops/attention/attention.h"

namespace opcert::ops::attention {
namespace {

// Allowed (query, key) pairs of one sequence under the docs/OPS.md mask: key j is visible to
// query i iff j <= i + skv - sq (causal) and j >= i + skv - sq - window_left (window_left >= 0).
// One step per query, so million-token sequences stay cheap.
int64_t visible_pairs(int64_t sq, int64_t skv, bool causal, int64_t window_left) {
  int64_t pairs = 0;
  for (int64_t i = 0; i < sq; ++i) {
    const int64_t diagonal = i + skv - sq;  // bottom-right aligned: the last query sees the last key
    const int64_t last = causal ? std::min(diagonal, skv - 1) : skv - 1;
    const int64_t first = window_left >= 0 ? std::max<int64_t>(diagonal - window_left, 0) : 0;
    if (last >= first) pairs += last - first + 1;
  }
  return pairs;
}

// A cu_seqlens operand's prefix sums, which the case carries as its fill values.
std::vector<int64_t> prefix_sums(const Case& c, const std::string& name) {
  const auto& t = work_operand(c, name, 1);
  if (t.fill.kind != FillSpec::Kind::kValues || t.fill.values.size() != static_cast<std::size_t>(t.numel()))
    work_model_error(c, fmt::format("operand '{}' must carry its {} values", name, t.numel()));
  std::vector<int64_t> cu;
  for (double v : t.fill.values) {
    if (v != std::floor(v) || (!cu.empty() && v < static_cast<double>(cu.back())) || (cu.empty() && v != 0))
      work_model_error(c, fmt::format("operand '{}' must hold non-decreasing integers from 0", name));
    cu.push_back(static_cast<int64_t>(v));
  }
  if (cu.empty()) work_model_error(c, fmt::format("operand '{}' is empty", name));
  return cu;
}

}  // namespace

WorkModel work(const Case& c) {
  const bool causal = attr_int(c.attrs, names::kCausal, 0) != 0;
  const int64_t window_left = attr_int(c.attrs, names::kWindowLeft, -1);
  const bool varlen = c.find_input(names::kCuSeqlensQ) != nullptr;
  const auto& q = work_operand(c, names::kQ, varlen ? 3 : 4);
  const auto& k = work_operand(c, names::kK, varlen ? 3 : 4);
  const int64_t heads = q.shape[q.shape.size() - 2];
  const int64_t d = q.shape.back();

  int64_t pairs = 0;  // per query head
  if (varlen) {
    const auto cu_q = prefix_sums(c, names::kCuSeqlensQ);
    const auto cu_k = prefix_sums(c, names::kCuSeqlensK);
    if (cu_q.size() != cu_k.size()) work_model_error(c, "cu_seqlens_q and cu_seqlens_k must list as many sequences");
    for (std::size_t b = 0; b + 1 < cu_q.size(); ++b)
      pairs += visible_pairs(cu_q[b + 1] - cu_q[b], cu_k[b + 1] - cu_k[b], causal, window_left);
  } else {
    pairs = q.shape[0] * visible_pairs(q.shape[1], k.shape[1], causal, window_left);
  }
  const double flops = 4.0 * static_cast<double>(d) * static_cast<double>(heads) * static_cast<double>(pairs);
  return {flops, operand_bytes(c), std::string(dtype_name(q.dtype)), true};
}

}  // namespace opcert::ops::attention
