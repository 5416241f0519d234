// attention: FlashAttention's forward, BSHD or varlen, causal bottom-right, sliding window,
// GQA/MQA (docs/OPS.md#attention). fp8 e4m3fn inputs are dequantized exactly (code times its
// group's descale, 1 when none is given) and go through the same fp64 computation.
//   o: magnitude[i,d] = sum_j p_ij |v_jd|; condition[i,d] = max_j |s_ij| over allowed keys.
//      fp8: each p_ij floored at 2^-14 / l_i (l_i = sum_j exp(s_ij - max_j s_ij)), what a P held
//      in e4m3 after FlashAttention-3's shift by 2^8 keeps to e4m3's relative precision
//      (docs/TOLERANCES.md, "fp8 attention").
//   lse: magnitude 1; condition = max_j |scale| * sum_d |q_d k_d| over allowed keys.
//   A query with no allowed key: o = 0 (magnitude 0, condition 1), lse = -inf (condition 1).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <algorithm>
#include <stdexcept>

#include "model/attr.h"
#include "ops/attention/attention.h"
#include "reference/reference_support.h"

namespace opcert::ops::attention {
namespace {

using namespace reference_detail;

constexpr double kInf = std::numeric_limits<double>::infinity();

// exp(s - max) below this is held by a shifted e4m3 P (2^8 exp(s - max), FlashAttention-3) in
// e4m3's subnormals: 2^-6 (e4m3's least normal) / 2^8.
constexpr double kE4m3ProbabilityFloor = 0x1.0p-14;

struct Sequence {
  int64_t q_first, q_len, k_first, k_len;
};

struct Problem {
  const HostTensor *q = nullptr, *k = nullptr, *v = nullptr;
  // fp8: the [B, Hkv] descales given (nullptr: 1), decoded.
  std::optional<at::Tensor> q_descale, k_descale, v_descale;
  bool fp8 = false;
  bool varlen = false;
  int64_t batch = 0, q_tokens = 0, k_tokens = 0, hq = 0, hkv = 0, d = 0;
  std::vector<Sequence> sequences;
  std::vector<int64_t> cu_q;  // varlen: token -> sequence lookup
  double scale = 0.0;
  bool causal = false;
  int64_t window_left = -1;

  // The factor of tensor `descale` for batch entry b and KV head g (1 when not given).
  static double factor(const std::optional<at::Tensor>& descale, int64_t b, int64_t g) {
    return descale ? (*descale)[b][g].item<double>() : 1.0;
  }

  int64_t sequence_of(int64_t token) const {
    if (!varlen) return token / sequences[0].q_len;
    return static_cast<int64_t>(std::upper_bound(cu_q.begin(), cu_q.end(), token) - cu_q.begin()) - 1;
  }
  // Flat index of lse for query token `token`, head h ([B, Hq, Sq] or [Hq, Tq]).
  int64_t lse_index(int64_t token, int64_t h) const {
    if (varlen) return h * q_tokens + token;
    const int64_t sq = sequences[0].q_len;
    return (token / sq * hq + h) * sq + token % sq;
  }
  // The query row (token * Hq + h) an lse index belongs to.
  int64_t row_of_lse(int64_t index) const {
    if (varlen) return (index % q_tokens) * hq + index / q_tokens;
    const int64_t sq = sequences[0].q_len;
    const int64_t b = index / (hq * sq), h = index / sq % hq, i = index % sq;
    return (b * sq + i) * hq + h;
  }
};

std::vector<int64_t> checked_prefix_sums(const HostTensor& cu, int64_t batch, int64_t total) {
  std::vector<int64_t> v = integer_values(cu);
  if (static_cast<int64_t>(v.size()) != batch + 1) throw std::invalid_argument("attention: cu_seqlens_q and cu_seqlens_k must both be [B+1]");
  if (v.front() != 0 || v.back() != total || !std::is_sorted(v.begin(), v.end()))
    throw std::invalid_argument(fmt::format("attention: '{}' must be non-decreasing from 0 to {}", cu.spec.name, total));
  return v;
}

Problem describe(const Case& c, std::span<const HostTensor> inputs) {
  Problem p;
  p.q = &require_input(inputs, c.op, names::kQ);
  p.k = &require_input(inputs, c.op, names::kK);
  p.v = &require_input(inputs, c.op, names::kV);
  const HostTensor* cu_q = optional_input(inputs, names::kCuSeqlensQ);
  p.varlen = cu_q != nullptr;
  const std::size_t rank = p.varlen ? 3 : 4;
  require_rank(*p.q, c.op, rank);
  require_rank(*p.k, c.op, rank);
  const auto& qs = p.q->spec.shape;
  const auto& ks = p.k->spec.shape;
  require_shape(*p.v, c.op, ks);
  p.hq = qs[rank - 2];
  p.hkv = ks[rank - 2];
  p.d = qs[rank - 1];
  if (ks[rank - 1] != p.d) throw std::invalid_argument("attention: q and k must share the head dim");
  if (p.hkv <= 0 || p.hq % p.hkv != 0)
    throw std::invalid_argument(fmt::format("attention: Hq ({}) must be a multiple of Hkv ({})", p.hq, p.hkv));
  if (p.varlen) {
    p.q_tokens = qs[0];
    p.k_tokens = ks[0];
    const HostTensor& cu_k = require_input(inputs, c.op, names::kCuSeqlensK);
    p.batch = cu_q->spec.numel() - 1;
    p.cu_q = checked_prefix_sums(*cu_q, p.batch, p.q_tokens);
    const std::vector<int64_t> cuk = checked_prefix_sums(cu_k, p.batch, p.k_tokens);
    for (int64_t b = 0; b < p.batch; ++b) {
      const auto i = static_cast<std::size_t>(b);
      p.sequences.push_back({p.cu_q[i], p.cu_q[i + 1] - p.cu_q[i], cuk[i], cuk[i + 1] - cuk[i]});
    }
  } else {
    p.batch = qs[0];
    if (ks[0] != p.batch) throw std::invalid_argument("attention: q and k must share the batch size");
    p.q_tokens = p.batch * qs[1];
    p.k_tokens = p.batch * ks[1];
    for (int64_t b = 0; b < p.batch; ++b) p.sequences.push_back({b * qs[1], qs[1], b * ks[1], ks[1]});
  }
  p.fp8 = p.q->spec.dtype == OPCERT_DTYPE_F8_E4M3FN;
  const std::pair<const char*, std::optional<at::Tensor>*> descales[] = {
      {names::kQDescale, &p.q_descale}, {names::kKDescale, &p.k_descale}, {names::kVDescale, &p.v_descale}};
  for (const auto& [name, slot] : descales) {
    const HostTensor* t = optional_input(inputs, name);
    if (t == nullptr) continue;
    if (!p.fp8) throw std::invalid_argument(fmt::format("attention: input '{}' is for fp8_e4m3fn q, k, v only", name));
    require_shape(*t, c.op, {p.batch, p.hkv});
    *slot = to_torch(*t);
  }
  p.scale = attr_float(c.attrs, names::kScale, 1.0 / std::sqrt(static_cast<double>(p.d)));
  p.causal = attr_int(c.attrs, names::kCausal, 0) != 0;
  p.window_left = attr_int(c.attrs, names::kWindowLeft, -1);

  if (require_output(c, names::kO).shape != qs) throw std::invalid_argument("attention: output 'o' must have the shape of 'q'");
  if (const TensorSpec* lse = c.find_output(names::kLse)) {
    const std::vector<int64_t> want = p.varlen ? std::vector<int64_t>{p.hq, p.q_tokens} : std::vector<int64_t>{p.batch, p.hq, qs[1]};
    if (lse->shape != want) throw std::invalid_argument("attention: output 'lse' must be " + shape_text(want));
  }
  return p;
}

// Keys query i (of a sequence of q_len queries and k_len keys) may attend: [n, k_len].
at::Tensor allowed_keys(const Problem& p, const Sequence& s, const std::vector<int64_t>& query_pos) {
  const at::Tensor i = index_tensor(query_pos).unsqueeze(1);
  const at::Tensor j = at::arange(s.k_len, at::kLong).unsqueeze(0);
  const int64_t shift = s.k_len - s.q_len;  // bottom-right alignment
  at::Tensor allowed = at::ones({static_cast<int64_t>(query_pos.size()), s.k_len}, at::kBool);
  if (p.causal) allowed = allowed & (j <= i + shift);
  if (p.window_left >= 0) allowed = allowed & (j >= i + shift - p.window_left);
  return allowed;
}

// Row maxima ([n, 1]) of `t` over the allowed keys; -inf for a row with none (also when there
// are no keys at all, where amax would refuse the empty dimension).
at::Tensor allowed_max(const at::Tensor& t, const at::Tensor& allowed) {
  if (t.size(1) == 0) return at::full({t.size(0), 1}, -kInf, at::kDouble);
  return t.masked_fill(at::logical_not(allowed), -kInf).amax(1, true);
}

struct Results {
  RowCollector o;
  RowCollector lse;
};

// The rows `rows` (token * Hq + h, all of sequence b and key head g) against that head's keys.
void attend(const Problem& p, int64_t b, int64_t g, std::span<const int64_t> rows, Results& out) {
  const Sequence& s = p.sequences[static_cast<std::size_t>(b)];
  // Dequantized exactly: an e4m3 code (4 significant bits) times an fp32 factor fits in fp64.
  const at::Tensor q = gather_rows(*p.q, p.d, rows) * Problem::factor(p.q_descale, b, g);
  std::vector<int64_t> key_rows(static_cast<std::size_t>(s.k_len));
  for (int64_t j = 0; j < s.k_len; ++j) key_rows[static_cast<std::size_t>(j)] = (s.k_first + j) * p.hkv + g;
  const at::Tensor k = gather_rows(*p.k, p.d, key_rows) * Problem::factor(p.k_descale, b, g);
  const at::Tensor v = gather_rows(*p.v, p.d, key_rows) * Problem::factor(p.v_descale, b, g);
  std::vector<int64_t> query_pos(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) query_pos[r] = rows[r] / p.hq - s.q_first;
  const at::Tensor allowed = allowed_keys(p, s, query_pos);
  const at::Tensor none = at::logical_not(allowed.any(1, true));  // [n, 1]

  const at::Tensor scores = at::mm(q, k.t()) * p.scale;
  const at::Tensor masked = scores.masked_fill(at::logical_not(allowed), -kInf);
  const at::Tensor row_max = allowed_max(scores, allowed).masked_fill(none, 0.0);
  const at::Tensor e = at::exp(masked - row_max);
  const at::Tensor total = e.sum(1, true);
  const at::Tensor prob = e / total;
  const at::Tensor lse = at::log(total) + row_max;  // log(0) = -inf for an empty row

  // The weights of the magnitude: p, or for fp8 p floored where a shifted e4m3 P holds it coarser.
  const at::Tensor weight =
      p.fp8 ? at::where(allowed, e.clamp_min(kE4m3ProbabilityFloor), at::zeros_like(e)) / total : prob;
  at::Tensor o, o_magnitude;
  if (at::isfinite(v).all().item<bool>()) {
    o = at::mm(prob, v);
    o_magnitude = at::mm(weight, v.abs());
  } else {
    // A NaN or Inf value at a masked key must not leak in through 0 * NaN: sum allowed keys only.
    o = at::zeros({q.size(0), p.d}, at::kDouble);
    o_magnitude = at::zeros({q.size(0), p.d}, at::kDouble);
    for (int64_t r = 0; r < q.size(0); ++r) {
      const at::Tensor keys = at::nonzero(allowed[r]).squeeze(1);
      const at::Tensor pr = prob[r].index_select(0, keys).unsqueeze(0);
      const at::Tensor wr = weight[r].index_select(0, keys).unsqueeze(0);
      const at::Tensor vr = v.index_select(0, keys);
      o[r].copy_(at::mm(pr, vr).squeeze(0));
      o_magnitude[r].copy_(at::mm(wr, vr.abs()).squeeze(0));
    }
  }
  o = o.masked_fill(none, 0.0);
  o_magnitude = o_magnitude.masked_fill(none, 0.0);
  const at::Tensor o_condition = allowed_max(scores.abs(), allowed).masked_fill(none, 1.0).expand_as(o);
  const at::Tensor lse_condition =
      allowed_max(at::mm(q.abs(), k.abs().t()) * std::fabs(p.scale), allowed).masked_fill(none, 1.0);

  std::vector<int64_t> o_pos, lse_pos, lse_src;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    o_pos.push_back(out.o.position(rows[r]));
    const int64_t at = out.lse.position(p.lse_index(rows[r] / p.hq, rows[r] % p.hq));
    if (at >= 0) {
      lse_pos.push_back(at);
      lse_src.push_back(static_cast<int64_t>(r));
    }
  }
  out.o.put(o_pos, {o, o_magnitude, o_condition});
  if (!lse_pos.empty()) {
    const at::Tensor pick = index_tensor(lse_src);
    out.lse.put(lse_pos, {lse.index_select(0, pick), at::ones({static_cast<int64_t>(lse_pos.size()), 1}, at::kDouble),
                          lse_condition.index_select(0, pick)});
  }
}

std::vector<ReferenceOutput> reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  const Problem p = describe(c, inputs);
  const bool with_lse = c.find_output(names::kLse) != nullptr;
  const int64_t o_numel = p.q_tokens * p.hq * p.d;
  const int64_t lse_numel = p.q_tokens * p.hq;
  const auto* o_sample = sampled(plan, names::kO, o_numel);
  const auto* lse_sample = with_lse ? sampled(plan, names::kLse, lse_numel) : nullptr;

  // Query rows (token * Hq + h) the outputs need, and the lse elements they produce.
  std::vector<int64_t> rows = rows_needed(o_sample, std::max<int64_t>(p.d, 1), p.d == 0 ? lse_numel : o_numel / p.d);
  std::vector<int64_t> lse_indices;
  if (with_lse) {
    lse_indices = rows_needed(lse_sample, 1, lse_numel);
    std::vector<int64_t> lse_rows;
    for (int64_t i : lse_indices) lse_rows.push_back(p.row_of_lse(i));
    std::sort(lse_rows.begin(), lse_rows.end());
    rows = merge_rows(rows, lse_rows);
  }
  Results out{RowCollector(rows, p.d, true, o_sample), RowCollector(lse_indices, 1, true, lse_sample)};

  // Group the rows by (sequence, key head): each group reads one head's keys and values once.
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> groups;
  const int64_t per_group = p.hq / p.hkv;
  for (int64_t row : rows) groups[{p.sequence_of(row / p.hq), row % p.hq / per_group}].push_back(row);
  for (const auto& [key, group_rows] : groups) {
    const Sequence& s = p.sequences[static_cast<std::size_t>(key.first)];
    for_row_chunks(group_rows, std::max<int64_t>(s.k_len, 1) + p.d,
                   [&](int64_t, std::span<const int64_t> chunk) { attend(p, key.first, key.second, chunk, out); });
  }

  std::vector<ReferenceOutput> result{out.o.emit(names::kO, o_numel)};
  if (with_lse) result.push_back(out.lse.emit(names::kLse, lse_numel));
  return result;
}

}  // namespace

OPCERT_REGISTER_REFERENCE(names::kOp, reference)

}  // namespace opcert::ops::attention
