// cpu.attention.flash: FlashAttention-style forward on the CPU (docs/OPS.md "attention"; operands
// read by the SDK's parse_attention). BSHD or varlen, bottom-right causal mask, sliding window,
// GQA/MQA, optional lse, fp16/bf16/fp32, and fp8 e4m3fn with descales (dequantized into fp32 first,
// o in bf16). Work items are (sequence, query head, block of queries), spread over OpenMP threads;
// the kernel is attn_flash.h.
#include <omp.h>
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/attention.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cpu_implementations.h"
#include "ops/attn_flash.h"
#include "ops/cpu_numeric.h"
#include "ops/cpu_vector.h"

namespace opcert::cpu {
namespace {

using namespace vec;

using sdk::AttentionOperands;

/// The kernel's view of a call that parsed (with data).
attn::Problem problem_of(const AttentionOperands& a) {
  attn::Problem p;
  p.q = a.q->data<const void>();
  p.k = a.k->data<const void>();
  p.v = a.v->data<const void>();
  p.o = a.o->data<void>();
  p.hq = a.hq;
  p.hkv = a.hkv;
  p.d = a.d;
  p.scale = static_cast<float>(a.scale);
  p.causal = a.causal;
  p.window_left = a.window_left;
  return p;
}

/// The sequences of the call; for varlen, cu_seqlens are data and checked here.
std::vector<attn::Sequence> sequences(const AttentionOperands& a) {
  std::vector<attn::Sequence> seqs(static_cast<std::size_t>(a.batch));
  if (!a.varlen()) {
    for (int64_t b = 0; b < a.batch; ++b) seqs[b] = {b * a.sq, a.sq, b * a.skv, a.skv};
    return seqs;
  }
  const auto entries = static_cast<std::size_t>(a.batch + 1);
  const std::span<const int32_t> cq(a.cu_seqlens_q->data<const int32_t>(), entries);
  const std::span<const int32_t> ck(a.cu_seqlens_k->data<const int32_t>(), entries);
  if (const std::string why = sdk::cu_seqlens_problem(a, cq, ck); !why.empty())
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, why);
  for (int64_t b = 0; b < a.batch; ++b) seqs[b] = {cq[b], cq[b + 1] - cq[b], ck[b], ck[b + 1] - ck[b]};
  return seqs;
}

struct WorkItem {
  int64_t seq, head, i0;
};

template <class T, class Out = T>
void run_flash(const AttentionOperands& a, const attn::Problem& p, const std::vector<attn::Sequence>& seqs) {
  std::vector<WorkItem> items;
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t h = 0; h < p.hq; ++h)
      for (int64_t i0 = 0; i0 < seqs[b].q_len; i0 += attn::kBlockQ) items.push_back({b, h, i0});
  const auto n_items = static_cast<int64_t>(items.size());
  const int threads = n_items > 1 ? omp_get_max_threads() : 1;
  const int64_t per_thread = attn::Workspace::floats(p.d);
  std::vector<float> workspace(static_cast<std::size_t>(threads * per_thread));
  float* lse = a.lse ? a.lse->data<float>() : nullptr;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t n = 0; n < n_items; ++n) {
    const WorkItem& it = items[n];
    const attn::Sequence& s = seqs[it.seq];
    const int64_t nq = std::min(attn::kBlockQ, s.q_len - it.i0);
    float* lse_row = nullptr;  // lse of query 0 of this (sequence, head)
    if (lse != nullptr) lse_row = a.varlen() ? lse + it.head * a.tq + s.q_start : lse + (it.seq * p.hq + it.head) * a.sq;
    const attn::Workspace w = attn::Workspace::carve(workspace.data() + omp_get_thread_num() * per_thread, p.d);
    attn::flash_block<T, Out>(p, s, it.head, it.i0, nq, lse_row, w);
  }
}

/// fp8 codes of q (query = true), k or v as fp32 [tokens, heads, D]: each code times the descale
/// of its (sequence, KV head), 1 without one, rounded once to fp32.
std::vector<float> dequantized(const AttentionOperands& a, const sdk::Tensor& codes, const std::optional<sdk::Tensor>& descale,
                               const std::vector<attn::Sequence>& seqs, bool query) {
  const int64_t heads = query ? a.hq : a.hkv, group = query ? a.group() : 1, D = a.d;
  std::vector<float> out(static_cast<std::size_t>(codes.numel()));
  const auto* src = codes.data<const uint8_t>();
  const float* factors = descale ? descale->data<const float>() : nullptr;
  for (std::size_t b = 0; b < seqs.size(); ++b) {
    const attn::Sequence& s = seqs[b];
    const int64_t first = query ? s.q_start : s.k_start, len = query ? s.q_len : s.k_len;
    const float* group_factors = factors ? factors + static_cast<int64_t>(b) * a.hkv : nullptr;
#pragma omp parallel for schedule(static) if (len * heads * D > 65536)
    for (int64_t t = first; t < first + len; ++t)
      for (int64_t h = 0; h < heads; ++h) {
        const float f = group_factors ? group_factors[h / group] : 1.0f;
        const int64_t row = (t * heads + h) * D;
        for (int64_t d = 0; d < D; ++d) out[row + d] = e4m3_to_f32(src[row + d]) * f;
      }
  }
  return out;
}

/// fp8 (FlashAttention-3's forward): q, k and v dequantized into fp32, then the fp32 kernel; o in bf16.
void run_fp8(const AttentionOperands& a, attn::Problem p, const std::vector<attn::Sequence>& seqs) {
  const std::vector<float> q = dequantized(a, *a.q, a.q_descale, seqs, true);
  const std::vector<float> k = dequantized(a, *a.k, a.k_descale, seqs, false);
  const std::vector<float> v = dequantized(a, *a.v, a.v_descale, seqs, false);
  p.q = q.data();
  p.k = k.data();
  p.v = v.data();
  run_flash<float, bf16>(a, p, seqs);
}

void compute(const AttentionOperands& a) {
  const std::vector<attn::Sequence> seqs = sequences(a);
  const attn::Problem p = problem_of(a);
  if (a.fp8()) return run_fp8(a, p, seqs);
  with_float_type(a.dtype, [&](auto tag) { run_flash<decltype(tag)>(a, p, seqs); });
}

std::vector<sdk::Implementation> attention_implementations() {
  return {sdk::checked_implementation(
      {"cpu.attention.flash", "attention",
       "tiled online-softmax attention (BSHD and varlen, causal, window, GQA/MQA, lse), fp32 math, OpenMP over "
       "sequence x head x query block; fp8 e4m3fn dequantized with its descales into fp32, o in bf16"},
      sdk::parse_attention, compute)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CpuImplementations, "attention", attention_implementations)

}  // namespace opcert::cpu
