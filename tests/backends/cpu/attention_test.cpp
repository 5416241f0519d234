// cpu.attention.flash against a naive double-precision attention (docs/OPS.md "attention"), also
// on fp8 e4m3fn codes with per-(batch entry, KV head) descales (dequantized here in double).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/misc_op_session.h"
#include "backends/declined.h"

namespace opcert::test::cpumisc {
namespace {

constexpr const char* kKey = "cpu.attention.flash";
const double kInf = std::numeric_limits<double>::infinity();

struct Case {
  std::string name;
  int32_t dtype = OPCERT_DTYPE_F32;
  int64_t batch = 1, sq = 1, skv = 1;       // BSHD
  std::vector<int32_t> cu_q, cu_k;          // varlen when not empty
  int64_t hq = 1, hkv = 1, d = 64;
  bool causal = false;
  int64_t window_left = -1;
  std::optional<double> scale;
  bool lse = true;
  double q_range = 2.0;  // larger q makes the softmax peakier
  bool descale = false;  // fp8: q_descale, k_descale, v_descale [B, Hkv], codes over e4m3's range
};

constexpr int32_t kE4m3 = OPCERT_DTYPE_F8_E4M3FN;

struct Seq {
  int64_t q0, ql, k0, kl;
};

/// o[token, h, :] and lse[h][token] from the formula of docs/OPS.md, in double.
void reference(const Case& c, const std::vector<Seq>& seqs, const std::vector<double>& q, const std::vector<double>& k,
               const std::vector<double>& v, double scale, std::vector<double>& o, std::vector<double>& lse,
               int64_t tq) {
  const int64_t d = c.d;
  o.assign(static_cast<std::size_t>(tq * c.hq * d), 0.0);
  lse.assign(static_cast<std::size_t>(c.hq * tq), -kInf);
  for (const Seq& s : seqs)
    for (int64_t h = 0; h < c.hq; ++h) {
      const int64_t g = h / (c.hq / c.hkv);
      for (int64_t i = 0; i < s.ql; ++i) {
        std::vector<double> scores;
        std::vector<int64_t> keys;
        for (int64_t j = 0; j < s.kl; ++j) {
          const int64_t diag = i + s.kl - s.ql;
          if (c.causal && j > diag) continue;
          if (c.window_left >= 0 && j < diag - c.window_left) continue;
          double dot = 0.0;
          for (int64_t x = 0; x < d; ++x) dot += q[((s.q0 + i) * c.hq + h) * d + x] * k[((s.k0 + j) * c.hkv + g) * d + x];
          scores.push_back(scale * dot);
          keys.push_back(j);
        }
        if (keys.empty()) continue;  // o = 0, lse = -inf
        const double m = *std::max_element(scores.begin(), scores.end());
        double sum = 0.0;
        for (double sc : scores) sum += std::exp(sc - m);
        for (std::size_t n = 0; n < keys.size(); ++n) {
          const double p = std::exp(scores[n] - m) / sum;
          for (int64_t x = 0; x < d; ++x)
            o[((s.q0 + i) * c.hq + h) * d + x] += p * v[((s.k0 + keys[n]) * c.hkv + g) * d + x];
        }
        lse[h * tq + s.q0 + i] = m + std::log(sum);
      }
    }
}

void run_case(Session& session, const Case& c) {
  SCOPED_TRACE(c.name + " " + dtype_label(c.dtype));
  const bool varlen = !c.cu_q.empty();
  std::vector<Seq> seqs;
  int64_t tq = 0, tk = 0;
  if (varlen) {
    for (std::size_t b = 0; b + 1 < c.cu_q.size(); ++b)
      seqs.push_back({c.cu_q[b], c.cu_q[b + 1] - c.cu_q[b], c.cu_k[b], c.cu_k[b + 1] - c.cu_k[b]});
    tq = c.cu_q.back();
    tk = c.cu_k.back();
  } else {
    for (int64_t b = 0; b < c.batch; ++b) seqs.push_back({b * c.sq, c.sq, b * c.skv, c.skv});
    tq = c.batch * c.sq;
    tk = c.batch * c.skv;
  }
  const std::vector<int64_t> q_shape = varlen ? std::vector<int64_t>{tq, c.hq, c.d}
                                              : std::vector<int64_t>{c.batch, c.sq, c.hq, c.d};
  const std::vector<int64_t> kv_shape = varlen ? std::vector<int64_t>{tk, c.hkv, c.d}
                                               : std::vector<int64_t>{c.batch, c.skv, c.hkv, c.d};
  const std::vector<int64_t> lse_shape = varlen ? std::vector<int64_t>{c.hq, tq}
                                                : std::vector<int64_t>{c.batch, c.hq, c.sq};
  const int32_t out_dtype = c.dtype == kE4m3 ? OPCERT_DTYPE_BF16 : c.dtype;
  Tensor q("q", c.dtype, q_shape), k("k", c.dtype, kv_shape), v("v", c.dtype, kv_shape), o("o", out_dtype, q_shape);
  Tensor lse("lse", OPCERT_DTYPE_F32, lse_shape);
  Tensor cu_q("cu_seqlens_q", OPCERT_DTYPE_I32, {static_cast<int64_t>(c.cu_q.size())});
  Tensor cu_k("cu_seqlens_k", OPCERT_DTYPE_I32, {static_cast<int64_t>(c.cu_k.size())});
  for (std::size_t i = 0; i < c.cu_q.size(); ++i) cu_q.set(static_cast<int64_t>(i), c.cu_q[i]);
  for (std::size_t i = 0; i < c.cu_k.size(); ++i) cu_k.set(static_cast<int64_t>(i), c.cu_k[i]);
  Random rng(static_cast<uint64_t>(c.d * 1000 + c.hq * 10 + c.dtype + tq));
  const double code_range = c.descale ? 448.0 : 1.0;  // codes of data quantized by its amax
  rng.fill(q, -c.q_range * code_range, c.q_range * code_range);
  rng.fill(k, -code_range, code_range);
  rng.fill(v, -code_range, code_range);
  const auto batch = static_cast<int64_t>(seqs.size());
  Tensor qd("q_descale", OPCERT_DTYPE_F32, {batch, c.hkv}), kd("k_descale", OPCERT_DTYPE_F32, {batch, c.hkv});
  Tensor vd("v_descale", OPCERT_DTYPE_F32, {batch, c.hkv});
  for (Tensor* t : {&qd, &kd, &vd}) rng.fill(*t, 0.5 / 448, 2.0 / 448);

  std::vector<Tensor*> inputs{&q, &k, &v};
  if (varlen) {
    inputs.push_back(&cu_q);
    inputs.push_back(&cu_k);
  }
  if (c.descale) inputs.insert(inputs.end(), {&qd, &kd, &vd});
  std::vector<Tensor*> outputs{&o};
  if (c.lse) outputs.push_back(&lse);
  std::vector<Attr> attrs{Attr::integer("causal", c.causal ? 1 : 0), Attr::integer("window_left", c.window_left)};
  if (c.scale) attrs.push_back(Attr::real("scale", *c.scale));
  const Outcome out = session.run(kKey, inputs, outputs, attrs);
  ASSERT_EQ(out.code, OPCERT_ERROR_OK) << out.message;

  const double scale = c.scale ? static_cast<double>(static_cast<float>(*c.scale))
                               : static_cast<double>(static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.d))));
  // Each code times the descale of its batch entry and KV head.
  auto dequantized = [&](const Tensor& t, const Tensor& descale, int64_t heads, bool query) {
    std::vector<double> x = t.values();
    if (!c.descale) return x;
    for (std::size_t b = 0; b < seqs.size(); ++b) {
      const int64_t first = query ? seqs[b].q0 : seqs[b].k0, len = query ? seqs[b].ql : seqs[b].kl;
      for (int64_t tok = first; tok < first + len; ++tok)
        for (int64_t h = 0; h < heads; ++h)
          for (int64_t x_ = 0; x_ < c.d; ++x_)
            x[(tok * heads + h) * c.d + x_] *= descale.get(static_cast<int64_t>(b) * c.hkv + h / (heads / c.hkv));
    }
    return x;
  };
  std::vector<double> want_o, want_lse;
  reference(c, seqs, dequantized(q, qd, c.hq, true), dequantized(k, kd, c.hkv, false), dequantized(v, vd, c.hkv, false), scale,
            want_o, want_lse, tq);
  const double v_max = c.descale ? 2.0 : 1.0;  // the largest |v| after dequantization
  int bad = 0;
  for (int64_t i = 0; i < o.numel() && bad < 5; ++i)
    if (!close(out_dtype, o.get(i), want_o[i], v_max) && ++bad)
      ADD_FAILURE() << "o element " << i << ": got " << o.get(i) << ", want " << want_o[i];
  if (c.lse) {
    for (const Seq& s : seqs)
      for (int64_t h = 0; h < c.hq; ++h)
        for (int64_t i = 0; i < s.ql && bad < 10; ++i) {
          const int64_t b = &s - seqs.data();
          const int64_t at = varlen ? h * tq + s.q0 + i : (b * c.hq + h) * c.sq + i;
          const double want = want_lse[h * tq + s.q0 + i];
          if (!close(OPCERT_DTYPE_F32, lse.get(at), want, 1.0 + std::fabs(want)) && ++bad)
            ADD_FAILURE() << "lse seq " << b << " head " << h << " query " << i << ": got " << lse.get(at) << ", want "
                          << want;
        }
  }
  EXPECT_TRUE(o.guards_intact() && lse.guards_intact()) << "attention wrote outside its outputs";
}

Case bshd(std::string name, int32_t dtype, int64_t b, int64_t sq, int64_t skv, int64_t hq, int64_t hkv, int64_t d) {
  Case c;
  c.name = std::move(name);
  c.dtype = dtype;
  c.batch = b;
  c.sq = sq;
  c.skv = skv;
  c.hq = hq;
  c.hkv = hkv;
  c.d = d;
  return c;
}

TEST(CpuAttention, CausalBottomRightWithGqa) {
  Session s;
  for (int32_t dtype : float_dtypes()) {
    Case c = bshd("causal Sq<Skv GQA 8/2", dtype, 2, 5, 9, 8, 2, 64);
    c.causal = true;
    run_case(s, c);
  }
}

TEST(CpuAttention, MqaAcrossSeveralTilesWithPeakySoftmax) {
  Session s;
  for (int32_t dtype : float_dtypes()) {
    Case c = bshd("MQA 70x70 D128", dtype, 1, 70, 70, 4, 1, 128);
    c.q_range = 6.0;
    run_case(s, c);
    c.causal = true;
    c.name = "MQA causal 70x70 D128";
    run_case(s, c);
  }
}

TEST(CpuAttention, SlidingWindow) {
  Session s;
  for (int32_t dtype : float_dtypes()) {
    Case c = bshd("causal window 7", dtype, 1, 100, 100, 2, 2, 64);
    c.causal = true;
    c.window_left = 7;
    run_case(s, c);
    Case w = bshd("non-causal window 3, Sq<Skv", dtype, 2, 33, 130, 2, 1, 64);
    w.window_left = 3;
    run_case(s, w);
  }
}

TEST(CpuAttention, VarlenWithEmptySequencesAndQueriesWithoutKeys) {
  Session s;
  for (int32_t dtype : float_dtypes())
    for (bool causal : {false, true}) {
      Case c;
      c.name = causal ? "varlen causal" : "varlen";
      c.dtype = dtype;
      // Sequence 1 has no queries, sequence 2 no keys (o = 0, lse = -inf), sequence 4 has more
      // queries than keys (causal: its first three queries see no key), sequence 3 spans 2 tiles.
      c.cu_q = {0, 3, 3, 10, 12, 18};
      c.cu_k = {0, 5, 9, 9, 80, 83};
      c.hq = 4;
      c.hkv = 2;
      c.d = 128;
      c.causal = causal;
      run_case(s, c);
    }
}

TEST(CpuAttention, QueryWithoutKeysGivesZeroAndMinusInfinity) {
  Session s;
  Case c = bshd("causal Sq>Skv", OPCERT_DTYPE_BF16, 1, 6, 2, 1, 1, 64);
  c.causal = true;
  run_case(s, c);  // queries 0..3 see no key; the reference leaves o = 0, lse = -inf there

  Tensor q("q", OPCERT_DTYPE_F32, {1, 3, 1, 8}), k("k", OPCERT_DTYPE_F32, {1, 1, 1, 8}), v("v", OPCERT_DTYPE_F32, {1, 1, 1, 8});
  Tensor o("o", OPCERT_DTYPE_F32, {1, 3, 1, 8}), lse("lse", OPCERT_DTYPE_F32, {1, 1, 3});
  Random(1).fill(q, -1.0, 1.0);
  Random(2).fill(k, -1.0, 1.0);
  Random(3).fill(v, -1.0, 1.0);
  ASSERT_EQ(s.run(kKey, {&q, &k, &v}, {&o, &lse}, {Attr::integer("causal", 1)}).code, OPCERT_ERROR_OK);
  for (int64_t i = 0; i < 16; ++i) EXPECT_EQ(o.get(i), 0.0) << i;
  EXPECT_EQ(lse.get(0), -kInf);
  EXPECT_EQ(lse.get(1), -kInf);
  for (int64_t i = 16; i < 24; ++i) EXPECT_EQ(o.get(i), v.get(i - 16)) << "one key: o is its value";
}

TEST(CpuAttention, ExplicitScaleOddHeadDimAndNoLse) {
  Session s;
  for (int32_t dtype : float_dtypes()) {
    Case c = bshd("D=40 scale 0.3", dtype, 3, 17, 23, 6, 3, 40);
    c.scale = 0.3;
    c.lse = false;
    run_case(s, c);
    Case wide = bshd("D=256 decode", dtype, 2, 1, 77, 8, 1, 256);
    run_case(s, wide);
  }
}

// fp8 e4m3fn (FlashAttention-3's forward): codes dequantized with their group's descale into
// fp32, then the fp32 kernel; o in bf16.
TEST(CpuAttention, Fp8WithDescalesPerBatchEntryAndKvHead) {
  Session s;
  for (bool causal : {false, true}) {
    Case c = bshd("fp8 GQA 8/2 with descales", kE4m3, 3, 33, 70, 8, 2, 128);
    c.causal = causal;
    c.descale = true;
    c.q_range = 1.0;
    run_case(s, c);
  }
  Case plain = bshd("fp8 without descales", kE4m3, 2, 17, 17, 4, 4, 64);
  run_case(s, plain);
  Case packed;
  packed.name = "fp8 varlen with descales";
  packed.dtype = kE4m3;
  packed.cu_q = {0, 3, 3, 10, 12};
  packed.cu_k = {0, 5, 9, 9, 80};
  packed.hq = 4;
  packed.hkv = 2;
  packed.d = 64;
  packed.causal = true;
  packed.descale = true;
  packed.q_range = 1.0;
  run_case(s, packed);
}

TEST(CpuAttention, Fp8CallsTheContractRefusesAreDeclined) {
  Session s;
  Tensor q("q", kE4m3, {1, 4, 2, 64}), k("k", kE4m3, {1, 4, 2, 64}), v("v", kE4m3, {1, 4, 2, 64});
  Tensor o("o", OPCERT_DTYPE_BF16, {1, 4, 2, 64}), o8("o", kE4m3, {1, 4, 2, 64});
  Tensor wide("k_descale", OPCERT_DTYPE_F32, {1, 4});
  EXPECT_TRUE(s.query(kKey, {&q, &k, &v}, {&o}).supported);
  abi::expect_declined(s.query(kKey, {&q, &k, &v}, {&o8}), "o is fp8_e4m3fn, expected bf16 (fp8_e4m3fn attention writes bf16)");
  abi::expect_declined(s.query(kKey, {&q, &k, &v, &wide}, {&o}),
                       "k_descale has shape [1, 4], expected [B, Hkv] (one factor per batch entry and KV head) = [1, 2]");
  Tensor bq("q", OPCERT_DTYPE_BF16, {1, 4, 2, 64}), bk("k", OPCERT_DTYPE_BF16, {1, 4, 2, 64}), bv("v", OPCERT_DTYPE_BF16, {1, 4, 2, 64});
  Tensor bd("q_descale", OPCERT_DTYPE_F32, {1, 2});
  abi::expect_declined(s.query(kKey, {&bq, &bk, &bv, &bd}, {&o}),
                       "input 'q_descale' is given with bf16 q, k, v; descales dequantize fp8_e4m3fn inputs only (leave it out)");
  EXPECT_TRUE(o.guards_intact());
}

// A call that breaks the contract is declined in the query (SKIPPED) with the SDK parser's reason;
// cu_seqlens values are data, so a bad one is an error of run.
TEST(CpuAttention, DeclinesCallsTheContractRefuses) {
  Session s;
  Tensor q("q", OPCERT_DTYPE_BF16, {1, 4, 3, 64}), k("k", OPCERT_DTYPE_BF16, {1, 4, 2, 64});
  Tensor v("v", OPCERT_DTYPE_BF16, {1, 4, 2, 64}), o("o", OPCERT_DTYPE_BF16, {1, 4, 3, 64});
  abi::expect_declined(s.query(kKey, {&q, &k, &v}, {&o}), "q has 3 heads and k 2, expected Hq a multiple of Hkv (GQA/MQA)");
  abi::expect_refused_run(s.run(kKey, {&q, &k, &v}, {&o}), "q has 3 heads and k 2, expected Hq a multiple of Hkv (GQA/MQA)");
  EXPECT_TRUE(o.guards_intact());
  Tensor q2("q", OPCERT_DTYPE_BF16, {1, 4, 2, 64}), o2("o", OPCERT_DTYPE_BF16, {1, 4, 2, 64});
  Tensor bad_lse("lse", OPCERT_DTYPE_F32, {1, 4, 2});  // [B, Sq, Hq]: lse is [B, Hq, Sq]
  abi::expect_declined(s.query(kKey, {&q2, &k, &v}, {&o2, &bad_lse}), "lse has shape [1, 4, 2], expected [B, Hq, Sq] = [1, 2, 4]");
  EXPECT_TRUE(s.query(kKey, {&q2, &k, &v}, {&o2}).supported);
  Tensor q0("q", OPCERT_DTYPE_BF16, {1, 4, 2, 0}), k0("k", OPCERT_DTYPE_BF16, {1, 4, 2, 0});
  Tensor v0("v", OPCERT_DTYPE_BF16, {1, 4, 2, 0}), o0("o", OPCERT_DTYPE_BF16, {1, 4, 2, 0});
  abi::expect_declined(s.query(kKey, {&q0, &k0, &v0}, {&o0}), "q has head dim D = 0, expected D >= 1");

  Tensor vq("q", OPCERT_DTYPE_F32, {5, 2, 8}), vk("k", OPCERT_DTYPE_F32, {4, 2, 8}), vv("v", OPCERT_DTYPE_F32, {4, 2, 8});
  Tensor vo("o", OPCERT_DTYPE_F32, {5, 2, 8});
  Tensor cq("cu_seqlens_q", OPCERT_DTYPE_I32, {3}), ck("cu_seqlens_k", OPCERT_DTYPE_I32, {3});
  for (int64_t i = 0; i < 3; ++i) {
    cq.set(i, static_cast<double>(i * 2));  // ends at 4, but q holds 5 tokens
    ck.set(i, static_cast<double>(i * 2));
  }
  EXPECT_TRUE(s.query(kKey, {&vq, &vk, &vv, &cq, &ck}, {&vo}).supported);
  const Outcome data = s.run(kKey, {&vq, &vk, &vv, &cq, &ck}, {&vo});
  EXPECT_EQ(data.code, OPCERT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(data.message, "cu_seqlens_q ends at 4, expected 5 (the tokens of q)");
  EXPECT_TRUE(vo.guards_intact());
  abi::expect_declined(s.query(kKey, {&vq, &vk, &vv, &cq}, {&vo}),
                       "missing input 'cu_seqlens_k' (varlen attention needs it with 'cu_seqlens_q')");

  Tensor iq("q", OPCERT_DTYPE_I8, {1, 4, 2, 64}), ik("k", OPCERT_DTYPE_I8, {1, 4, 2, 64});
  Tensor iv("v", OPCERT_DTYPE_I8, {1, 4, 2, 64}), io("o", OPCERT_DTYPE_I8, {1, 4, 2, 64});
  abi::expect_declined(s.query(kKey, {&iq, &ik, &iv}, {&io}), "q must be fp16/bf16/fp32/fp8_e4m3fn (got int8)");
}

}  // namespace
}  // namespace opcert::test::cpumisc
