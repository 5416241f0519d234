// Calibration rule 1 of docs/TOLERANCES.md: torch's own native-dtype computation passes every smoke
// case of its ops with margin. Were the tolerance model tighter than what a mainstream framework
// computes, every backend would fail for the model's sake; this catches such a bound before a
// vendor does.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <variant>

#include "session/execution/execution.h"
#include "check/suite.h"
#include "loader/backend_handle.h"

extern "C" const opcert_api* opcert_torch_backend_get_api(void);

namespace opcert {
namespace {

// Rounding a correct result to the output dtype alone costs up to half an ulp, about 0.5 of the
// bound; beyond this the model leaves torch too little room.
constexpr double kMargin = 0.8;

// Debian's LibTorch 1.13 on some CPUs (seen on an AVX2-only AMD EPYC, OpenBLAS 0.3.21, whatever
// OPENBLAS_CORETYPE says) multiplies bf16 by a row-major B [K, N] wrongly: values of the wrong sign,
// about 3e4 times the bound, while the same product with B [N, K] is right. That is a defect of the
// library on this machine, not of the tolerance model this test calibrates: the two layouts of one
// product are compared here, and where they disagree the bf16 [K, N] cases are left out, said.
bool bf16_row_major_b_is_wrong_here() {
  at::manual_seed(0);
  const at::Tensor a = at::randn({64, 80}).to(at::kBFloat16);
  const at::Tensor b = at::randn({80, 48}).to(at::kBFloat16);
  const at::Tensor row_major = at::matmul(a, b.contiguous()).to(at::kDouble);
  const at::Tensor column_major = at::matmul(a, b.t().contiguous().t()).to(at::kDouble);
  // A correct bf16 product differs between the layouts by an ulp or two of values near 10 at most.
  return (row_major - column_major).abs().max().item<double>() > 0.5;
}

TEST(TorchCalibration, EverySmokeCasePassesWithMargin) {
  auto backend = BackendHandle::open(opcert_torch_backend_get_api(), BackendSource{});
  const Suite suite = load_suite("smoke", 1);
  int checked = 0;
  const bool skip_bf16_kn = bf16_row_major_b_is_wrong_here();
  int left_out = 0;
  for (const auto& impl : backend->implementations()) {
    for (const Case& c : suite.cases) {
      if (c.op != impl.op) continue;
      const auto layout = c.attrs.find("b_layout");
      const std::string* layout_text = layout == c.attrs.end() ? nullptr : std::get_if<std::string>(&layout->second);
      if (skip_bf16_kn && c.dtype == "bf16" && layout_text != nullptr && *layout_text == "kn") {
        ++left_out;
        continue;
      }
      const CaseResult r = execute_case(*backend, impl.key, c);
      if (r.status == Status::kSkipped) {
        EXPECT_FALSE(r.message.empty()) << c.id;
        continue;
      }
      EXPECT_EQ(r.status, Status::kPassed) << impl.key << " " << c.id << ": " << r.message;
      for (const auto& m : r.metrics) EXPECT_LT(m.error_ratio, kMargin) << impl.key << " " << c.id << " output " << m.name;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100) << "the smoke suite should reach most of torch's implementations";
  if (left_out > 0)
    std::printf("left out %d bf16 cases with B [K, N]: this LibTorch's bf16 matmul with a row-major B is wrong on "
                "this CPU (the two layouts of one product disagree)\n", left_out);
}

}  // namespace
}  // namespace opcert
