// Attention as torch computes it in the operands' dtype. Without lse, a sliding window or a
// bottom-right causal mask that differs from top-left, LibTorch >= 2.1 runs
// at::scaled_dot_product_attention (flash / memory-efficient kernels on CUDA). Otherwise torch's
// math path: scores = q·kᵀ in the dtype, scaled and masked in fp32, softmax in fp32, p cast back
// to the dtype for p·v, lse = logsumexp in fp32; GQA by repeat_interleave of the kv heads.
// Varlen runs each sequence on its own slices of the packed tensors.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/query_checks.h"
#include "ops/torch_ops.h"
#include "tensor_bridge.h"
#include "torch_version.h"

namespace opcert::torch_backend {
namespace {

using namespace checks;

struct Params {
  double scale = 0;
  bool causal = false;
  int64_t window_left = -1;  // < 0: unlimited
};

// Bytes of fp32 score temporaries one math-path block may hold: blocks of (batch, heads, query
// rows) keep long sequences within memory.
constexpr int64_t kScoreBudgetBytes = int64_t{1} << 30;

// Which keys query rows [i0, i0+rows) may attend, [rows, skv]; undefined when all may.
at::Tensor allowed_keys(int64_t i0, int64_t rows, int64_t sq, int64_t skv, const Params& p, const at::Device& device) {
  if (!p.causal && p.window_left < 0) return {};
  const auto opts = at::TensorOptions().dtype(at::kLong).device(device);
  const at::Tensor diag = at::arange(i0, i0 + rows, opts).unsqueeze(1) + (skv - sq);  // key aligned with row i
  const at::Tensor j = at::arange(skv, opts).unsqueeze(0);
  at::Tensor ok = at::ones({rows, skv}, opts.dtype(at::kBool));
  if (p.causal) ok = ok & (j <= diag);
  if (p.window_left >= 0) ok = ok & (j >= diag - p.window_left);
  return ok;
}

// Math path on q [B, Sq, H, D], k/v [B, Skv, H, D] (kv heads already repeated); writes o_dst
// [B, Sq, H, D] and, when defined, lse_dst [B, H, Sq].
void attend_math(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const Params& p, const at::Tensor& o_dst,
                 const at::Tensor& lse_dst) {
  const int64_t batch = q.size(0), sq = q.size(1), heads = q.size(2), skv = k.size(1);
  const at::ScalarType cd = compute_dtype(q.scalar_type(), q.device());
  const at::Tensor qh = q.permute({0, 2, 1, 3}).to(cd), kh = k.permute({0, 2, 1, 3}).to(cd), vh = v.permute({0, 2, 1, 3}).to(cd);
  const int64_t row_bytes = skv * 4 * 3;  // scores, probabilities and a mask-sized temporary per query row
  const int64_t rows = std::clamp<int64_t>(kScoreBudgetBytes / std::max<int64_t>(row_bytes, 1), 1, sq);
  const int64_t head_step = std::clamp<int64_t>(kScoreBudgetBytes / std::max<int64_t>(row_bytes * sq, 1), 1, heads);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h0 = 0; h0 < heads; h0 += head_step)
      for (int64_t i0 = 0; i0 < sq; i0 += rows) {
        const int64_t hn = std::min(head_step, heads - h0), in = std::min(rows, sq - i0);
        const at::Tensor qb = qh.select(0, b).narrow(0, h0, hn).narrow(1, i0, in);  // [hn, in, D]
        const at::Tensor kb = kh.select(0, b).narrow(0, h0, hn), vb = vh.select(0, b).narrow(0, h0, hn);
        at::Tensor s = at::matmul(qb, kb.transpose(-2, -1)).to(at::kFloat) * p.scale;
        const at::Tensor ok = allowed_keys(i0, in, sq, skv, p, q.device());
        if (ok.defined()) s.masked_fill_(ok.logical_not(), -std::numeric_limits<float>::infinity());
        at::Tensor probs = at::softmax(s, -1);
        // A row with no allowed key softmaxes to NaN; the contract makes its output 0.
        if (ok.defined()) probs.masked_fill_(ok.any(-1).logical_not().unsqueeze(-1), 0);
        const at::Tensor o = at::matmul(probs.to(cd), vb);  // [hn, in, D]
        o_dst.select(0, b).narrow(1, h0, hn).narrow(0, i0, in).copy_(o.permute({1, 0, 2}));
        if (lse_dst.defined()) lse_dst.select(0, b).narrow(0, h0, hn).narrow(1, i0, in).copy_(at::logsumexp(s, -1));
      }
}

// Whether torch's fused SDPA computes exactly this case: it has no lse output, no sliding window,
// and its causal mask is top-left aligned (the same as bottom-right only when Sq == Skv).
#if OPCERT_TORCH_AT_LEAST(2, 1)
bool sdpa_applies(const at::Tensor& q, const at::Tensor& k, const Params& p, bool want_lse) {
  return !want_lse && p.window_left < 0 && (!p.causal || q.size(1) == k.size(1)) && k.size(1) > 0;
}
#endif

// q [B, Sq, Hq, D], k/v [B, Skv, Hkv, D] -> o_dst [B, Sq, Hq, D], lse_dst [B, Hq, Sq] (if defined).
void attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const Params& p, const at::Tensor& o_dst,
            const at::Tensor& lse_dst) {
  if (q.size(1) == 0) return;
  if (k.size(1) == 0) {  // no key at all: every query row is empty
    o_dst.zero_();
    if (lse_dst.defined()) lse_dst.fill_(-std::numeric_limits<float>::infinity());
    return;
  }
  const int64_t group = q.size(2) / k.size(2);
#if OPCERT_TORCH_AT_LEAST(2, 1)
  if (sdpa_applies(q, k, p, lse_dst.defined())) {
    const at::ScalarType cd = compute_dtype(q.scalar_type(), q.device());
    auto bhsd = [cd](const at::Tensor& t) { return t.permute({0, 2, 1, 3}).to(cd); };
#if OPCERT_TORCH_AT_LEAST(2, 5)
    const at::Tensor o = at::scaled_dot_product_attention(bhsd(q), bhsd(k), bhsd(v), {}, 0.0, p.causal, p.scale,
                                                          /*enable_gqa=*/group > 1);
#else
    const at::Tensor o = at::scaled_dot_product_attention(bhsd(q), bhsd(k).repeat_interleave(group, 1),
                                                          bhsd(v).repeat_interleave(group, 1), {}, 0.0, p.causal, p.scale);
#endif
    o_dst.copy_(o.permute({0, 2, 1, 3}));
    return;
  }
#endif
  const at::Tensor kr = group > 1 ? k.repeat_interleave(group, 2) : k, vr = group > 1 ? v.repeat_interleave(group, 2) : v;
  attend_math(q, kr, vr, p, o_dst, lse_dst);
}

std::vector<int64_t> host_offsets(const at::Tensor& cu) {
  const at::Tensor host = cu.to(at::kCPU, at::kLong).contiguous();
  return std::vector<int64_t>(host.data_ptr<int64_t>(), host.data_ptr<int64_t>() + host.numel());
}

void check_offsets(const std::vector<int64_t>& cu, int64_t total, const char* name) {
  if (cu.empty() || cu.front() != 0)
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, std::string(name) + " must start at 0");
  for (std::size_t i = 1; i < cu.size(); ++i)
    if (cu[i] < cu[i - 1]) throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, std::string(name) + " decreases");
  if (cu.back() > total)
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, std::string(name) + " ends past the packed tokens");
}

sdk::Support query(const sdk::OpCall& call) {
  const sdk::Tensor q = call.input("q"), k = call.input("k"), v = call.input("v"), o = call.output("o");
  const bool varlen = call.find_input("cu_seqlens_q").has_value();
  const int32_t rank = varlen ? 3 : 4;
  if (auto s = all_of({dtype_in(q, {OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16, OPCERT_DTYPE_F32}), same_dtype(q, k),
                       same_dtype(q, v), same_dtype(q, o), rank_is(q, rank), rank_is(k, rank), rank_is(v, rank),
                       rank_is(o, rank), dense(q), dense(k), dense(v), dense(o)});
      !s.supported)
    return s;
  const int64_t hq = q.dim(-2), hkv = k.dim(-2), d = q.dim(-1);
  if (hkv == 0 || hq % hkv != 0)
    return sdk::Support::no("Hq = " + std::to_string(hq) + " is not a multiple of Hkv = " + std::to_string(hkv));
  if (auto s = all_of({shape_is(v, std::vector<int64_t>(k.shape().begin(), k.shape().end())),
                       shape_is(o, std::vector<int64_t>(q.shape().begin(), q.shape().end())), k.dim(-1) == d ? "" : "k's D differs from q's"});
      !s.supported)
    return s;
  auto lse = call.find_output("lse");
  if (!varlen) {
    if (k.dim(0) != q.dim(0)) return sdk::Support::no("k's batch differs from q's");
    return lse ? all_of({dtype_in(*lse, {OPCERT_DTYPE_F32}), shape_is(*lse, {q.dim(0), hq, q.dim(1)})}) : sdk::Support::yes();
  }
  auto cu_k = call.find_input("cu_seqlens_k");
  if (!cu_k) return sdk::Support::no("varlen attention needs cu_seqlens_k with cu_seqlens_q");
  const sdk::Tensor cu_q = call.input("cu_seqlens_q");
  return all_of({dtype_in(cu_q, {OPCERT_DTYPE_I32}), dtype_in(*cu_k, {OPCERT_DTYPE_I32}), rank_is(cu_q, 1),
                 cu_k->ndim() == 1 && cu_q.ndim() == 1 && cu_k->dim(0) == cu_q.dim(0) && cu_q.dim(0) >= 1
                     ? ""
                     : "cu_seqlens_q and cu_seqlens_k must both be [B+1]",
                 lse ? dtype_in(*lse, {OPCERT_DTYPE_F32}) : "", lse ? shape_is(*lse, {hq, q.dim(0)}) : ""});
}

void run(const sdk::OpCall& call) {
  const at::Tensor q = wrap(call.input("q")), k = wrap(call.input("k")), v = wrap(call.input("v"));
  const at::Tensor o = wrap(call.output("o"));
  const auto lse_out = call.find_output("lse");
  const at::Tensor lse = lse_out ? wrap(*lse_out) : at::Tensor();
  Params p;
  p.scale = call.get_float("scale", 1.0 / std::sqrt(static_cast<double>(q.size(-1))));
  p.causal = call.get_int("causal", 0) != 0;
  p.window_left = call.get_int("window_left", -1);
  const auto cu_q = wrap_input(call, "cu_seqlens_q");
  if (!cu_q) return attend(q, k, v, p, o, lse);
  const std::vector<int64_t> off_q = host_offsets(*cu_q), off_k = host_offsets(*wrap_input(call, "cu_seqlens_k"));
  check_offsets(off_q, q.size(0), "cu_seqlens_q");
  check_offsets(off_k, k.size(0), "cu_seqlens_k");
  for (std::size_t b = 0; b + 1 < off_q.size(); ++b) {
    const int64_t q0 = off_q[b], sq = off_q[b + 1] - q0, k0 = off_k[b], skv = off_k[b + 1] - k0;
    auto seq = [](const at::Tensor& t, int64_t start, int64_t len) { return t.narrow(0, start, len).unsqueeze(0); };
    attend(seq(q, q0, sq), seq(k, k0, skv), seq(v, k0, skv), p, seq(o, q0, sq),
           lse.defined() ? lse.narrow(1, q0, sq).unsqueeze(0) : at::Tensor());
  }
}

}  // namespace

std::vector<sdk::Implementation> attention_implementations() {
  return {{"torch.attention.native", "attention",
           "at::scaled_dot_product_attention where it applies (LibTorch >= 2.1), else torch's math path "
           "(fp32 softmax, GQA by repeat_interleave), per-sequence varlen",
           query, run}};
}

}  // namespace opcert::torch_backend
