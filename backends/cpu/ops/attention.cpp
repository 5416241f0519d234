// cpu.attention.flash: FlashAttention-style forward on the CPU (docs/OPS.md "attention").
// BSHD or varlen, bottom-right causal mask, sliding window, GQA/MQA, optional lse. Work items
// are (sequence, query head, block of queries), spread over OpenMP threads; the kernel is
// attn_flash.h.
#include <omp.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ops/attn_flash.h"
#include "ops/cpu_ops.h"
#include "ops/cpu_vector.h"
#include "ops/cpu_vector_operands.h"

namespace opcert::cpu {
namespace {

using namespace vec;

/// The operands of one call, checked against the contract.
struct AttentionCall {
  sdk::Tensor q, k, v, o;
  std::optional<sdk::Tensor> lse, cu_q, cu_k;
  bool varlen = false;
  int64_t batch = 0;            // B (varlen: cu_seqlens length - 1)
  int64_t sq = 0, skv = 0;      // BSHD sequence lengths
  int64_t tq = 0, tk = 0;       // tokens in q and k (B*Sq, B*Skv for BSHD)
  attn::Problem problem;
};

std::string operand_text(const sdk::Tensor& t) { return "'" + std::string(t.name()) + "' " + shape_string(t); }

AttentionCall check_attention(const sdk::OpCall& call) {
  AttentionCall a{call.input("q"), call.input("k"), call.input("v"), call.output("o")};
  for (const sdk::Tensor* t : {&a.q, &a.k, &a.v}) require_dense(*t);
  a.cu_q = call.find_input("cu_seqlens_q");
  a.cu_k = call.find_input("cu_seqlens_k");
  require(a.cu_q.has_value() == a.cu_k.has_value(), "attention needs both 'cu_seqlens_q' and 'cu_seqlens_k' or neither");
  a.varlen = a.cu_q.has_value();
  const int32_t rank = a.varlen ? 3 : 4;
  const char* layout = a.varlen ? "varlen [T, H, D]" : "BSHD [B, S, H, D]";
  for (const sdk::Tensor* t : {&a.q, &a.k, &a.v})
    require(t->ndim() == rank, std::string("attention ") + layout + " expects rank " + std::to_string(rank) + ", got " +
                                   operand_text(*t));
  require_like(a.v, a.k);
  require(a.k.dtype() == a.q.dtype(), "attention 'k' is " + dtype_name(a.k.dtype()) + " but 'q' is " +
                                          dtype_name(a.q.dtype()));
  require_like(a.o, a.q);
  const int64_t hq = a.q.dim(-2), hkv = a.k.dim(-2), d = a.q.dim(-1);
  require(a.k.dim(-1) == d, "attention head dims differ: " + operand_text(a.q) + ", " + operand_text(a.k));
  require(hkv >= 1 && hq % hkv == 0, "attention query heads (" + std::to_string(hq) +
                                         ") must be a multiple of key/value heads (" + std::to_string(hkv) + ")");
  if (a.varlen) {
    for (const sdk::Tensor* t : {&*a.cu_q, &*a.cu_k}) {
      require_dense(*t);
      require(t->dtype() == OPCERT_DTYPE_I32 && t->ndim() == 1 && t->dim(0) >= 1,
              "attention " + operand_text(*t) + " must be int32 [B+1]");
    }
    require(a.cu_q->dim(0) == a.cu_k->dim(0), "attention 'cu_seqlens_q' and 'cu_seqlens_k' differ in length");
    a.batch = a.cu_q->dim(0) - 1;
    a.tq = a.q.dim(0);
    a.tk = a.k.dim(0);
  } else {
    require(a.k.dim(0) == a.q.dim(0), "attention batch sizes differ: " + operand_text(a.q) + ", " + operand_text(a.k));
    a.batch = a.q.dim(0);
    a.sq = a.q.dim(1);
    a.skv = a.k.dim(1);
    a.tq = a.batch * a.sq;
    a.tk = a.batch * a.skv;
  }
  a.lse = call.find_output("lse");
  if (a.lse) {
    require_dense(*a.lse);
    const bool shape_ok = a.varlen ? (a.lse->ndim() == 2 && a.lse->dim(0) == hq && a.lse->dim(1) == a.tq)
                                   : (a.lse->ndim() == 3 && a.lse->dim(0) == a.batch && a.lse->dim(1) == hq &&
                                      a.lse->dim(2) == a.sq);
    require(shape_ok, std::string("attention output ") + operand_text(*a.lse) + " must be " +
                          (a.varlen ? "[Hq, Tq]" : "[B, Hq, Sq]"));
    require(a.lse->dtype() == OPCERT_DTYPE_F32, "attention output 'lse' must be fp32");
  }
  attn::Problem& p = a.problem;
  p.hq = hq;
  p.hkv = hkv;
  p.d = d;
  p.scale = static_cast<float>(call.get_float("scale", d > 0 ? 1.0 / std::sqrt(static_cast<double>(d)) : 1.0));
  p.causal = call.get_int("causal", 0) != 0;
  p.window_left = call.get_int("window_left", -1);
  return a;
}

/// The sequences of the call; for varlen, cu_seqlens are checked here (they are data).
std::vector<attn::Sequence> sequences(const AttentionCall& a) {
  std::vector<attn::Sequence> seqs(static_cast<std::size_t>(a.batch));
  if (!a.varlen) {
    for (int64_t b = 0; b < a.batch; ++b) seqs[b] = {b * a.sq, a.sq, b * a.skv, a.skv};
    return seqs;
  }
  const int32_t* cq = a.cu_q->data<const int32_t>();
  const int32_t* ck = a.cu_k->data<const int32_t>();
  require(cq[0] == 0 && ck[0] == 0, "attention cu_seqlens must start at 0");
  for (int64_t b = 0; b < a.batch; ++b) {
    require(cq[b + 1] >= cq[b] && ck[b + 1] >= ck[b],
            "attention cu_seqlens decrease at sequence " + std::to_string(b));
    seqs[b] = {cq[b], cq[b + 1] - cq[b], ck[b], ck[b + 1] - ck[b]};
  }
  require(cq[a.batch] == a.tq, "attention cu_seqlens_q ends at " + std::to_string(cq[a.batch]) + " but 'q' has " +
                                   std::to_string(a.tq) + " tokens");
  require(ck[a.batch] == a.tk, "attention cu_seqlens_k ends at " + std::to_string(ck[a.batch]) + " but 'k' has " +
                                   std::to_string(a.tk) + " tokens");
  return seqs;
}

struct WorkItem {
  int64_t seq, head, i0;
};

template <class T>
void run_flash(const AttentionCall& a, const std::vector<attn::Sequence>& seqs) {
  const attn::Problem& p = a.problem;
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
    if (lse != nullptr) lse_row = a.varlen ? lse + it.head * a.tq + s.q_start : lse + (it.seq * p.hq + it.head) * a.sq;
    const attn::Workspace w = attn::Workspace::carve(workspace.data() + omp_get_thread_num() * per_thread, p.d);
    attn::flash_block<T>(p, s, it.head, it.i0, nq, lse_row, w);
  }
}

sdk::Support query_attention(const sdk::OpCall& call) {
  const sdk::Support dtype = float_dtype_support(call.input("q"));
  if (!dtype.supported) return dtype;
  const AttentionCall a = check_attention(call);
  if (a.problem.d == 0) return sdk::Support::no("head dim D = 0 is not supported");
  return sdk::Support::yes();
}

void run_attention(const sdk::OpCall& call) {
  AttentionCall a = check_attention(call);
  require(a.problem.d > 0, "attention head dim D = 0 is not supported");
  const std::vector<attn::Sequence> seqs = sequences(a);
  a.problem.q = a.q.data<const void>();
  a.problem.k = a.k.data<const void>();
  a.problem.v = a.v.data<const void>();
  a.problem.o = a.o.data<void>();
  with_float_type(a.q.dtype(), [&](auto tag) { run_flash<decltype(tag)>(a, seqs); });
}

}  // namespace

std::vector<sdk::Implementation> attention_implementations() {
  sdk::Implementation impl;
  impl.key = "cpu.attention.flash";
  impl.op = "attention";
  impl.description =
      "tiled online-softmax attention (BSHD and varlen, causal, window, GQA/MQA, lse), fp32 math, OpenMP over "
      "sequence x head x query block";
  impl.query = query_attention;
  impl.run = run_attention;
  return {impl};
}

}  // namespace opcert::cpu
