// The CUDA backend on a GPU: every smoke case of every op it implements, checked against the
// reference exactly as `opcert run` checks it. Where there is no usable GPU (CI, the development
// machines) the backend cannot initialise and every test here skips, saying why.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "backends/cuda/cuda_backend_fixture.h"
#include "session/execution/execution.h"
#include "check/suite.h"

namespace opcert {
namespace {

using CudaSmoke = CudaBackendTest;

// Any number of GPUs: the backend lists each one it serves (every GPU, or the one OPCERT_CUDA_DEVICE
// confines it to) in ascending index order, named.
TEST_F(CudaSmoke, EveryDeviceIsANamedCudaDeviceWithEvents) {
  const auto& devices = backend_->devices();
  ASSERT_GE(devices.size(), 1u);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].device.type, OPCERT_DEVICE_CUDA) << "device " << i;
    if (i > 0) {
      EXPECT_GT(devices[i].device.index, devices[i - 1].device.index) << "devices listed out of order";
    }
    EXPECT_FALSE(devices[i].name.empty()) << "device " << i;
  }
  EXPECT_TRUE(backend_->has_events());
}

TEST_F(CudaSmoke, EverySmokeCaseOfEveryImplementationPassesOrSaysWhyNot) {
  const Suite suite = load_suite("smoke", 1);
  std::map<std::string, int> passed;
  for (const auto& impl : backend_->implementations()) {
    for (const Case& c : suite.cases) {
      if (c.op != impl.op) continue;
      const CaseResult r = execute_case(*backend_, impl.key, c);
      if (r.status == Status::kSkipped) {
        EXPECT_FALSE(r.message.empty()) << c.id;  // an unsupported case names its reason
        continue;
      }
      EXPECT_TRUE(r.status == Status::kPassed || r.status == Status::kMistrusted)
          << impl.key << " " << c.id << ": " << status_name(r.status) << ": " << r.message;
      ++passed[impl.op];
    }
  }
  // Every op of the catalogue but the collectives has an implementation that ran something.
  for (const char* op : {"gemm", "gemm_fp8", "gemm_int8", "quantize", "attention", "rms_norm", "layer_norm", "rope",
                         "softmax"})
    EXPECT_GT(passed[op], 0) << op;
}

}  // namespace
}  // namespace opcert
