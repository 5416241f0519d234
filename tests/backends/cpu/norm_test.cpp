// cpu.rms_norm.fused and cpu.layer_norm.fused against naive double-precision norms
// (docs/OPS.md "rms_norm", "layer_norm").
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backends/cpu/misc_op_session.h"
#include "backends/declined.h"

namespace opcert::test::cpumisc {
namespace {

struct Options {
  bool layer = false;
  bool weight = false;
  bool bias = false;
  bool residual = false;
  double eps = 1e-6;
};

std::string describe(int32_t dtype, int64_t h, const Options& o) {
  return std::string(o.layer ? "layer_norm" : "rms_norm") + " " + dtype_label(dtype) + " H=" + std::to_string(h) +
         (o.weight ? " +weight" : "") + (o.bias ? " +bias" : "") + (o.residual ? " +residual" : "");
}

/// Runs one norm call on random data and checks y (and residual_out) against double math.
void check_norm(Session& s, int32_t dtype, int64_t rows, int64_t h, const Options& o) {
  SCOPED_TRACE(describe(dtype, h, o));
  Random rng(static_cast<uint64_t>(h * 131 + rows + dtype * 7 + o.weight + 2 * o.bias + 4 * o.residual));
  Tensor x("x", dtype, {rows, h}), w("weight", dtype, {h}), b("bias", dtype, {h}), res("residual", dtype, {rows, h});
  Tensor y("y", dtype, {rows, h}), res_out("residual_out", dtype, {rows, h});
  rng.fill(x, -2.0, 3.0);  // off-centre, so layer_norm's mean matters
  rng.fill(w, 0.5, 1.5);
  rng.fill(b, -1.0, 1.0);
  rng.fill(res, -1.0, 1.0);
  std::vector<Tensor*> inputs{&x};
  std::vector<Tensor*> outputs{&y};
  if (o.weight) inputs.push_back(&w);
  if (o.bias) inputs.push_back(&b);
  if (o.residual) {
    inputs.push_back(&res);
    outputs.push_back(&res_out);
  }
  const std::string key = o.layer ? "cpu.layer_norm.fused" : "cpu.rms_norm.fused";
  const Outcome out = s.run(key, inputs, outputs, {Attr::real("eps", o.eps)});
  ASSERT_EQ(out.code, OPCERT_ERROR_OK) << out.message;

  int bad = 0;
  for (int64_t t = 0; t < rows && bad < 5; ++t) {
    std::vector<double> r(h);
    for (int64_t i = 0; i < h; ++i) {
      r[i] = x.get(t * h + i);
      if (o.residual) {
        Tensor rounded("r", dtype, {1});
        rounded.set(0, static_cast<double>(static_cast<float>(r[i] + res.get(t * h + i))));
        r[i] = rounded.get(0);
        if (res_out.get(t * h + i) != r[i] && ++bad)
          ADD_FAILURE() << "residual_out[" << t << "," << i << "] = " << res_out.get(t * h + i) << ", want " << r[i];
      }
    }
    double mean = 0.0;
    if (o.layer) {
      for (double v : r) mean += v;
      mean /= static_cast<double>(h);
    }
    double ms = 0.0;
    for (double v : r) ms += (v - mean) * (v - mean);
    ms /= static_cast<double>(h);
    const double inv = 1.0 / std::sqrt(ms + o.eps);
    for (int64_t i = 0; i < h; ++i) {
      const double scaled = (r[i] - mean) * inv * (o.weight ? w.get(i) : 1.0);
      const double want = scaled + (o.bias ? b.get(i) : 0.0);
      // Centring cancels: the fp32 error scales with |r| and |mean|, not with |r - mean|.
      const double mag = (std::fabs(r[i]) + std::fabs(mean)) * inv * (o.weight ? std::fabs(w.get(i)) : 1.0) +
                         (o.bias ? std::fabs(b.get(i)) : 0.0);
      if (!close(dtype, y.get(t * h + i), want, mag) && ++bad)
        ADD_FAILURE() << "y[" << t << "," << i << "] = " << y.get(t * h + i) << ", want " << want;
    }
  }
  EXPECT_TRUE(y.guards_intact() && res_out.guards_intact()) << "norm wrote outside its outputs";
}

TEST(CpuRmsNorm, MatchesDoubleReference) {
  Session s;
  for (int32_t dtype : float_dtypes())
    for (int64_t h : {1, 17, 4096})
      for (bool weight : {false, true})
        for (bool residual : {false, true}) check_norm(s, dtype, 5, h, {false, weight, false, residual, 1e-6});
}

TEST(CpuLayerNorm, MatchesDoubleReference) {
  Session s;
  for (int32_t dtype : float_dtypes())
    for (int64_t h : {1, 17, 4096})
      for (int mask = 0; mask < 8; ++mask)
        check_norm(s, dtype, 5, h, {true, (mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0, 1e-5});
}

TEST(CpuNorms, ManyRowsAndTheWidestHidden) {
  Session s;
  check_norm(s, OPCERT_DTYPE_BF16, 3000, 17, {false, true, false, true, 1e-6});
  check_norm(s, OPCERT_DTYPE_F32, 4, 16384, {true, true, true, true, 1e-5});
  check_norm(s, OPCERT_DTYPE_F16, 4, 16384, {false, true, false, false, 1e-6});
}

TEST(CpuNorms, HiddenOfOneIsExact) {
  // One element: layer_norm centres it to 0 (y = bias), rms_norm gives x / sqrt(x^2 + eps).
  Session s;
  Tensor x("x", OPCERT_DTYPE_F32, {2, 1}), b("bias", OPCERT_DTYPE_F32, {1}), y("y", OPCERT_DTYPE_F32, {2, 1});
  x.set(0, 3.0);
  x.set(1, -0.5);
  b.set(0, 0.25);
  ASSERT_EQ(s.run("cpu.layer_norm.fused", {&x, &b}, {&y}).code, OPCERT_ERROR_OK);
  EXPECT_EQ(y.get(0), 0.25);
  EXPECT_EQ(y.get(1), 0.25);
  ASSERT_EQ(s.run("cpu.rms_norm.fused", {&x}, {&y}, {Attr::real("eps", 0.0)}).code, OPCERT_ERROR_OK);
  EXPECT_EQ(y.get(0), 1.0);
  EXPECT_EQ(y.get(1), -1.0);
}

// A call that breaks the contract is declined in the query (SKIPPED) with the SDK parser's reason.
TEST(CpuNorms, DeclinesCallsTheContractRefuses) {
  Session s;
  Tensor x("x", OPCERT_DTYPE_F32, {2, 8}), y("y", OPCERT_DTYPE_F32, {2, 8});
  Tensor res("residual", OPCERT_DTYPE_F32, {2, 8}), res_out("residual_out", OPCERT_DTYPE_F32, {2, 8});
  Tensor short_w("weight", OPCERT_DTYPE_F32, {7}), bias("bias", OPCERT_DTYPE_F32, {8});
  Tensor w16("weight", OPCERT_DTYPE_F16, {8});
  Tensor x3("x", OPCERT_DTYPE_F32, {2, 1, 8}), y3("y", OPCERT_DTYPE_F32, {2, 1, 8});
  abi::expect_declined(s.query("cpu.rms_norm.fused", {&x, &res}, {&y}),
                       "missing output 'residual_out' (required with input 'residual')");
  abi::expect_declined(s.query("cpu.rms_norm.fused", {&x}, {&y, &res_out}),
                       "output 'residual_out' is given without input 'residual'");
  abi::expect_declined(s.query("cpu.rms_norm.fused", {&x, &short_w}, {&y}), "weight has shape [7], expected [H] = [8]");
  abi::expect_declined(s.query("cpu.layer_norm.fused", {&x, &w16}, {&y}), "weight is fp16, expected fp32 (the dtype of x)");
  abi::expect_declined(s.query("cpu.rms_norm.fused", {&x, &bias}, {&y}), "rms_norm has no input 'bias' (layer_norm has)");
  abi::expect_declined(s.query("cpu.layer_norm.fused", {&x3}, {&y3}), "x must be 2-D [T, H] (got [2, 1, 8])");
  abi::expect_refused_run(s.run("cpu.layer_norm.fused", {&x, &res}, {&y}),
                          "missing output 'residual_out' (required with input 'residual')");
  EXPECT_TRUE(y.guards_intact());
  Tensor xi("x", OPCERT_DTYPE_I8, {2, 8}), yi("y", OPCERT_DTYPE_I8, {2, 8});
  abi::expect_declined(s.query("cpu.rms_norm.fused", {&xi}, {&yi}), "x must be fp32/fp16/bf16 (got int8)");
}

}  // namespace
}  // namespace opcert::test::cpumisc
