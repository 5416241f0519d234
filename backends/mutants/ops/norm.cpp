// The mutants of rms_norm and layer_norm (no residual) in fp64, and their defects.
#include <opcert/sdk/ops/layer_norm.h>
#include <opcert/sdk/ops/rms_norm.h>

#include <cmath>
#include <utility>
#include <vector>

#include "mutant_op.h"
#include "naive_values.h"

namespace opcert::mutants {
namespace {

using sdk::Tensor;

// This file's own defects (defect.h holds those that several ops share).
constexpr Defect kWrongEps = own_defect(0);           // eps ten times too large
constexpr Defect kMeanOffByOne = own_defect(1);       // the mean of squares divided by H - 1
constexpr Defect kUnbiasedVariance = own_defect(2);   // the variance divided by H - 1 (torch.var's default)
constexpr Defect kWeightDropped = own_defect(3);      // the weight never applied

sdk::Support naive_norm_limits(const sdk::NormOperands& n) {
  if (n.residual) return sdk::Support::no("the naive norms take no residual");
  return sdk::Support::yes();
}

void naive_norm(const sdk::NormOperands& n, Defect defect) {
  const Tensor &x = *n.x, &y = *n.y;
  const auto &w = n.weight, &bias = n.bias;
  const bool centred = n.kind == sdk::NormKind::kLayer;
  double eps = n.eps;
  if (defect == kWrongEps) eps *= 10.0;
  const int64_t T = n.t, H = n.h;
  const bool one_short = defect == kMeanOffByOne || defect == kUnbiasedVariance;
  const double divisor = static_cast<double>(one_short ? H - 1 : H);
  const bool weighted = w && defect != kWeightDropped;
  for (int64_t t = 0; t < T; ++t) {
    double mean = 0.0, sq = 0.0;
    for (int64_t h = 0; h < H; ++h) mean += ld(x, t * H + h) / static_cast<double>(H);
    if (!centred) mean = 0.0;
    for (int64_t h = 0; h < H; ++h) sq += std::pow(ld(x, t * H + h) - mean, 2) / divisor;
    for (int64_t h = 0; h < H; ++h)
      st(y, t * H + h,
         (ld(x, t * H + h) - mean) / std::sqrt(sq + eps) * (weighted ? ld(*w, h) : 1.0) + (bias ? ld(*bias, h) : 0.0), defect);
  }
}

std::vector<sdk::Implementation> norm_mutants() {
  std::vector<sdk::Implementation> list;
  for (auto& impl : mutant_variants<sdk::NormOperands>({"rms_norm", sdk::parse_rms_norm, naive_norm, naive_norm_limits,
      {{Defect::kNone, "correct"},
       {kWrongEps, "wrong_eps"},
       {kWeightDropped, "weight_dropped"},
       {kMeanOffByOne, "mean_off_by_one"},
       {Defect::kTruncatedOutput, "truncated_output"}}})) list.push_back(std::move(impl));
  for (auto& impl : mutant_variants<sdk::NormOperands>({"layer_norm", sdk::parse_layer_norm, naive_norm, naive_norm_limits,
      {{Defect::kNone, "correct"},
       {kWrongEps, "wrong_eps"},
       {kWeightDropped, "weight_dropped"},
       {kUnbiasedVariance, "unbiased_variance"},
       {Defect::kTruncatedOutput, "truncated_output"}}})) list.push_back(std::move(impl));
  return list;
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(MutantImplementations, "norm", norm_mutants)

}  // namespace opcert::mutants
