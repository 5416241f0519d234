// Attention as torch computes it in the operands' dtype. Without lse, a sliding window or a
// bottom-right causal mask that differs from top-left, LibTorch >= 2.1 runs
// at::scaled_dot_product_attention (flash / memory-efficient kernels on CUDA). Otherwise torch's
// math path: scores = q·kᵀ in the dtype, scaled and masked in fp32, softmax in fp32, p cast back
// to the dtype for p·v, lse = logsumexp in fp32; GQA by repeat_interleave of the kv heads.
// Varlen runs each sequence on its own slices of the packed tensors, but a decode batch (one query
// row per sequence) on CUDA, which runs as one SDPA call on keys and values padded to the longest
// sequence with a key mask (ops/decode_padding.h; docs/PEER.md says why). fp8 e4m3fn (FlashAttention-3's
// fp8 forward; torch 2.11 has no fp8 SDPA for Hopper): q, k and v dequantized to bf16 as a user
// writes it, x.to(torch.bfloat16) scaled in place by its KV head's descale, then the same paths in
// bf16 (docs/PEER.md). Operands: the SDK's parse_attention.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/attention.h>

#include <algorithm>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "fp8_codec.h"
#include "kept_buffers.h"
#include "ops/decode_padding.h"
#include "tensor_bridge.h"
#include "torch_implementations.h"
#include "torch_version.h"

namespace opcert::torch_backend {
namespace {

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
// and its causal mask is top-left aligned (the same as bottom-right when Sq == Skv, and no mask at
// all for one query row).
#if OPCERT_TORCH_AT_LEAST(2, 1)
bool sdpa_applies(const at::Tensor& q, const at::Tensor& k, const Params& p, bool want_lse) {
  return !want_lse && p.window_left < 0 && (!p.causal || q.size(1) == k.size(1) || q.size(1) == 1) && k.size(1) > 0;
}

// SDPA's is_causal for the case: one query row under a bottom-right mask sees every key, so decode
// calls SDPA unmasked, as a torch user's decode step does.
bool sdpa_causal(const at::Tensor& q, const Params& p) { return p.causal && q.size(1) > 1; }
#endif

// torch's fused SDPA on q [B, Sq, Hq, D], k/v [B, Skv, Hkv, D] where it applies: its result
// [B, Sq, Hq, D] (a view of torch's own output), else nullopt.
c10::optional<at::Tensor> sdpa(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const Params& p,
                               bool want_lse) {
#if OPCERT_TORCH_AT_LEAST(2, 1)
  if (!sdpa_applies(q, k, p, want_lse)) return c10::nullopt;
  const int64_t group = q.size(2) / k.size(2);
  const at::ScalarType cd = compute_dtype(q.scalar_type(), q.device());
  auto bhsd = [cd](const at::Tensor& t) { return t.permute({0, 2, 1, 3}).to(cd); };
#if OPCERT_TORCH_AT_LEAST(2, 5)
  const at::Tensor o = at::scaled_dot_product_attention(bhsd(q), bhsd(k), bhsd(v), {}, 0.0, sdpa_causal(q, p), p.scale,
                                                        /*enable_gqa=*/group > 1);
#else
  const at::Tensor o = at::scaled_dot_product_attention(bhsd(q), bhsd(k).repeat_interleave(group, 1),
                                                        bhsd(v).repeat_interleave(group, 1), {}, 0.0, sdpa_causal(q, p),
                                                        p.scale);
#endif
  return o.permute({0, 2, 1, 3});
#else
  (void)q, (void)k, (void)v, (void)p, (void)want_lse;
  return c10::nullopt;
#endif
}

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
  if (auto o = sdpa(q, k, v, p, lse_dst.defined())) {
    o_dst.copy_(*o);
    return;
  }
  const at::Tensor kr = group > 1 ? k.repeat_interleave(group, 2) : k, vr = group > 1 ? v.repeat_interleave(group, 2) : v;
  attend_math(q, kr, vr, p, o_dst, lse_dst);
}

// fp8 codes q, k or v [B, S, H, D] as bf16: one copy, x.to(torch.bfloat16), scaled in place by
// the descale [B, Hkv] of each head's KV head (head h: h / (H / Hkv)); as they are without one.
at::Tensor dequantized(const at::Tensor& codes, const c10::optional<at::Tensor>& descale, int64_t hkv) {
  at::Tensor x = fp8_to(codes, OPCERT_DTYPE_F8_E4M3FN, at::kBFloat16);
  if (!descale) return x;
  const int64_t b = x.size(0), s = x.size(1), h = x.size(2), d = x.size(3);
  x.view({b, s, hkv, h / hkv, d}).mul_(descale->view({b, 1, hkv, 1, 1}));
  return x;
}

// Batch entries [b, b + n) of an optional descale [B, Hkv].
c10::optional<at::Tensor> rows(const c10::optional<at::Tensor>& descale, int64_t b, int64_t n) {
  if (!descale) return c10::nullopt;
  return descale->narrow(0, b, n);
}

// q, k and v as the paths take them: the operands, or dequantized fp8 of batch entries [b, b + n).
struct Inputs {
  at::Tensor q, k, v;
};
Inputs inputs_of(const sdk::AttentionOperands& a, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t b,
                 int64_t n) {
  if (!a.fp8()) return {q, k, v};
  const c10::optional<at::Tensor> qd = wrap(a.q_descale), kd = wrap(a.k_descale), vd = wrap(a.v_descale);
  return {dequantized(q, rows(qd, b, n), a.hkv), dequantized(k, rows(kd, b, n), a.hkv),
          dequantized(v, rows(vd, b, n), a.hkv)};
}

// Whether a varlen call is a decode batch that runs padded (decided without the data, so that
// library_call can say it): one query token per sequence, no lse (SDPA returns none), not fp8, on
// CUDA with a LibTorch whose SDPA takes enable_gqa. run() still runs per sequence where the data
// break it (a sequence without a key, or with other than one query row).
bool pads_decode_batch(const sdk::AttentionOperands& a) {
  return OPCERT_TORCH_AT_LEAST(2, 5) && a.varlen() && a.q->device().type == OPCERT_DEVICE_CUDA && !a.fp8() && !a.lse &&
         a.batch > 0 && a.tq == a.batch;
}

// The decode batch as one SDPA call: k and v copied (index_copy_) into kept zero [B, Skv_max, Hkv,
// D] buffers, which a user allocates once (their stale rows are masked), q [B, Hq, D] viewed as
// [B, 1, Hq, D], the key mask of decode_padding; o [B, Hq, D] as torch returns it. nullopt where
// a sequence has no key or other than one query row (per sequence instead).
c10::optional<at::Tensor> padded_decode(const sdk::AttentionOperands& a, const at::Tensor& q, const at::Tensor& k,
                                        const at::Tensor& v, const std::vector<int32_t>& off_q,
                                        const std::vector<int32_t>& off_k, const Params& p) {
#if OPCERT_TORCH_AT_LEAST(2, 5)
  int64_t skv_max = 0;
  for (std::size_t b = 0; b + 1 < off_q.size(); ++b) {
    if (off_q[b + 1] - off_q[b] != 1 || off_k[b + 1] == off_k[b]) return c10::nullopt;
    skv_max = std::max<int64_t>(skv_max, off_k[b + 1] - off_k[b]);
  }
  const int64_t batch = a.batch;
  const DecodePadding pad = decode_padding(wrap(*a.cu_seqlens_k), skv_max, a.tk, p.window_left);
  const at::Tensor kp = kept_buffer("attention.decode_padded_k", {batch, skv_max, a.hkv, a.d}, {}, k.options());
  const at::Tensor vp = kept_buffer("attention.decode_padded_v", {batch, skv_max, a.hkv, a.d}, {}, v.options());
  kp.view({batch * skv_max, a.hkv, a.d}).index_copy_(0, pad.rows, k);
  vp.view({batch * skv_max, a.hkv, a.d}).index_copy_(0, pad.rows, v);
  auto bhsd = [](const at::Tensor& t) { return t.permute({0, 2, 1, 3}); };
  const at::Tensor o = at::scaled_dot_product_attention(bhsd(q.reshape({batch, 1, a.hq, a.d})), bhsd(kp), bhsd(vp),
                                                        pad.mask, 0.0, /*is_causal=*/false, p.scale,
                                                        /*enable_gqa=*/a.group() > 1);  // [B, Hq, 1, D]
  return o.select(2, 0);
#else
  (void)a, (void)q, (void)k, (void)v, (void)off_q, (void)off_k, (void)p;
  return c10::nullopt;
#endif
}

// cu_seqlens on the host (they are int32 [B+1]).
std::vector<int32_t> host_offsets(const at::Tensor& cu) {
  const at::Tensor host = cu.to(at::kCPU).contiguous();
  return std::vector<int32_t>(host.data_ptr<int32_t>(), host.data_ptr<int32_t>() + host.numel());
}

void run(const sdk::AttentionOperands& a) {
  const at::Tensor q_in = wrap(*a.q), k_in = wrap(*a.k), v_in = wrap(*a.v);
  const at::Tensor o = wrap(*a.o);
  const at::Tensor lse = a.lse ? wrap(*a.lse) : at::Tensor();
  Params p;
  p.scale = a.scale;
  p.causal = a.causal;
  p.window_left = a.window_left;
  if (!a.varlen()) {
    const auto [q, k, v] = inputs_of(a, q_in, k_in, v_in, 0, a.batch);
    // The fused call's fresh result goes to write_output: published after timing, as a torch
    // user's `o = F.scaled_dot_product_attention(...)` never copies it.
    if (q.size(1) > 0 && k.size(1) > 0)
      if (auto fused = sdpa(q, k, v, p, lse.defined())) return write_output(*a.o, *fused);
    return attend(q, k, v, p, o, lse);
  }
  const std::vector<int32_t> off_q = host_offsets(wrap(*a.cu_seqlens_q)), off_k = host_offsets(wrap(*a.cu_seqlens_k));
  // cu_seqlens are data: checked here, before anything is written.
  if (const std::string why = sdk::cu_seqlens_problem(a, off_q, off_k); !why.empty())
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, why);
  if (pads_decode_batch(a))
    if (auto o_padded = padded_decode(a, q_in, k_in, v_in, off_q, off_k, p)) return write_output(*a.o, *o_padded);
  for (std::size_t b = 0; b + 1 < off_q.size(); ++b) {
    const int64_t q0 = off_q[b], sq = off_q[b + 1] - q0, k0 = off_k[b], skv = off_k[b + 1] - k0;
    auto seq = [](const at::Tensor& t, int64_t start, int64_t len) { return t.narrow(0, start, len).unsqueeze(0); };
    const Inputs in = inputs_of(a, seq(q_in, q0, sq), seq(k_in, k0, skv), seq(v_in, k0, skv), static_cast<int64_t>(b), 1);
    attend(in.q, in.k, in.v, p, seq(o, q0, sq), lse.defined() ? lse.narrow(1, q0, sq).unsqueeze(0) : at::Tensor());
  }
}

// The call on q, k and v in a float dtype (for fp8: their bf16 dequantization).
std::string sdpa_or_math_call(const sdk::AttentionOperands& a) {
  const bool top_left_same = !a.causal || a.sq == a.skv || a.sq == 1;
  const bool fused = OPCERT_TORCH_AT_LEAST(2, 1) && !a.varlen() && !a.lse && a.window_left < 0 && top_left_same;
  if (fused)
    return std::string("torch.nn.functional.scaled_dot_product_attention(q, k, v") +
           (a.causal && a.sq > 1 ? ", is_causal=True" : "") +
           ", scale=scale" + (a.group() > 1 ? ", enable_gqa=True" : "") + ") on [B, H, S, D] views";
  if (pads_decode_batch(a))
    return std::string("decode batch padded to the longest sequence: k and v copied (index_copy_) into kept zero [B, "
                       "Skv_max, Hkv, D] buffers, a key mask from cu_seqlens_k") +
           (a.window_left >= 0 ? " and the window" : "") +
           ", one torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale" +
           (a.group() > 1 ? ", enable_gqa=True" : "") +
           ") on [B, H, S, D] views (per sequence where a sequence has no key or other than one query row)";
  const std::string why = a.varlen()     ? "varlen: one call per sequence, which ran faster on the H200 than one SDPA on "
                                           "jagged nested tensors (torch 2.11's take no GQA) or on sequences padded to the "
                                           "longest, outside a decode batch"
                    : a.lse             ? "SDPA returns no lse"
                    : a.window_left >= 0 ? "SDPA has no sliding window"
                                         : "SDPA's causal mask is top-left, the case's bottom-right";
  if (a.varlen()) return "per sequence: scaled_dot_product_attention where it applies, else the math path (" + why + ")";
  return "math path: q.kT in the dtype, fp32 masked softmax, p.v (" + why + ")";
}

std::string library_call(const sdk::AttentionOperands& a) {
  if (!a.fp8()) return sdpa_or_math_call(a);
  return "q, k, v dequantized to bf16, x.to(torch.bfloat16).mul_(descale of its KV head) (torch has no fp8 SDPA for "
         "Hopper), then in bf16: " +
         sdpa_or_math_call(a);
}

std::vector<sdk::Implementation> attention_implementations() {
  return {sdk::checked_implementation({"torch.attention.native", "attention",
                                       "at::scaled_dot_product_attention where it applies (LibTorch >= 2.1), else torch's "
                                       "math path (fp32 softmax, GQA by repeat_interleave), per-sequence varlen; fp8 "
                                       "dequantized to bf16 first",
                                       operand_device_type()},
                                      sdk::parse_attention, run, nullptr, library_call)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(TorchImplementations, "attention", attention_implementations)

}  // namespace opcert::torch_backend
