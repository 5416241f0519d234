#include "bench/work_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "model/dtype.h"
#include "model/tf32.h"

namespace opcert {
namespace {

[[noreturn]] void fail(const Case& c, const std::string& message) {
  throw std::invalid_argument(fmt::format("work model of {} case '{}': {}", c.op, c.id, message));
}

const TensorSpec& operand(const Case& c, const std::string& name, std::size_t rank) {
  const TensorSpec* t = c.find_input(name);
  if (!t) t = c.find_output(name);
  if (!t) fail(c, fmt::format("no operand '{}'", name));
  if (t->shape.size() != rank) fail(c, fmt::format("operand '{}' has shape {}, not of rank {}", name, shape_text(t->shape), rank));
  return *t;
}

// Every operand once: what an ideal kernel must move at least (re-reads hit in cache).
double operand_bytes(const Case& c) {
  double bytes = 0;
  for (const auto& t : c.inputs) bytes += static_cast<double>(t.bytes());
  for (const auto& t : c.outputs) bytes += static_cast<double>(t.bytes());
  return bytes;
}

// gemm, gemm_fp8, gemm_int8: one multiply and one add per (m, n, k). The epilogue (bias, scales)
// is O(M·N), negligible, and left out of vendors' peak figures too.
WorkModel gemm_model(const Case& c) {
  const auto& a = operand(c, "a", 2);
  const auto& out = operand(c, "c", 2);
  const double m = static_cast<double>(a.shape[0]), k = static_cast<double>(a.shape[1]);
  const double n = static_cast<double>(out.shape[1]);  // from c: the same whatever b_layout is
  // The A operand's dtype picks the tensor-core rate (gemm_fp8 may mix e4m3 A with e5m2 B); an
  // fp32 gemm that allows TF32 is judged against the TF32 rate it permits.
  const std::string peak_key(c.op == "gemm" && allows_tf32(c) ? kTf32PeakKey : dtype_name(a.dtype));
  return {2 * m * n * k, operand_bytes(c), peak_key, true};
}

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
  const auto& t = operand(c, name, 1);
  if (t.fill.kind != FillSpec::Kind::kValues || t.fill.values.size() != static_cast<std::size_t>(t.numel()))
    fail(c, fmt::format("operand '{}' must carry its {} values", name, t.numel()));
  std::vector<int64_t> cu;
  for (double v : t.fill.values) {
    if (v != std::floor(v) || (!cu.empty() && v < static_cast<double>(cu.back())) || (cu.empty() && v != 0))
      fail(c, fmt::format("operand '{}' must hold non-decreasing integers from 0", name));
    cu.push_back(static_cast<int64_t>(v));
  }
  if (cu.empty()) fail(c, fmt::format("operand '{}' is empty", name));
  return cu;
}

// attention: per allowed pair and query head, D multiply-adds for q·k and D for p·v.
WorkModel attention_model(const Case& c) {
  const bool causal = attr_int(c.attrs, "causal", 0) != 0;
  const int64_t window_left = attr_int(c.attrs, "window_left", -1);
  const bool varlen = c.find_input("cu_seqlens_q") != nullptr;
  const auto& q = operand(c, "q", varlen ? 3 : 4);
  const auto& k = operand(c, "k", varlen ? 3 : 4);
  const int64_t heads = q.shape[q.shape.size() - 2];
  const int64_t d = q.shape.back();

  int64_t pairs = 0;  // per query head
  if (varlen) {
    const auto cu_q = prefix_sums(c, "cu_seqlens_q");
    const auto cu_k = prefix_sums(c, "cu_seqlens_k");
    if (cu_q.size() != cu_k.size()) fail(c, "cu_seqlens_q and cu_seqlens_k must list as many sequences");
    for (std::size_t b = 0; b + 1 < cu_q.size(); ++b)
      pairs += visible_pairs(cu_q[b + 1] - cu_q[b], cu_k[b + 1] - cu_k[b], causal, window_left);
  } else {
    pairs = q.shape[0] * visible_pairs(q.shape[1], k.shape[1], causal, window_left);
  }
  const double flops = 4.0 * static_cast<double>(d) * static_cast<double>(heads) * static_cast<double>(pairs);
  return {flops, operand_bytes(c), std::string(dtype_name(q.dtype)), true};
}

// Elementwise and row-wise ops: their arithmetic is negligible next to their traffic.
bool is_memory_bound_op(std::string_view op) {
  return op == "rms_norm" || op == "layer_norm" || op == "rope" || op == "softmax" || op == "quantize";
}

}  // namespace

WorkModel work_model(const Case& c) {
  if (c.op == "gemm" || c.op == "gemm_fp8" || c.op == "gemm_int8") return gemm_model(c);
  if (c.op == "attention") return attention_model(c);
  if (is_memory_bound_op(c.op)) return {0, operand_bytes(c), "", false};
  throw std::invalid_argument(fmt::format("no work model for op '{}'", c.op));
}

}  // namespace opcert
