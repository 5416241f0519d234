// Memory admission (session/execution/memory_admission.h): a case's footprint from its shapes, and the
// refusal that makes a case too big SKIPPED with its figures.
#include "session/execution/memory_admission.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace opcert {
namespace {

using ::testing::HasSubstr;

TensorSpec spec(const std::string& name, opcert_dtype dtype, std::vector<int64_t> shape) {
  TensorSpec t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

// bf16 GEMM 100000^3: 60 GB of operands and outputs, whatever the machine.
Case huge_gemm() {
  Case c;
  c.op = "gemm";
  c.inputs = {spec("a", OPCERT_DTYPE_BF16, {100000, 100000}), spec("b", OPCERT_DTYPE_BF16, {100000, 100000})};
  c.outputs = {spec("c", OPCERT_DTYPE_BF16, {100000, 100000})};
  return c;
}

TEST(MemoryAdmission, TheFootprintCountsOperandsGuardedOutputsAndTheReference) {
  const Footprint f = case_footprint(huge_gemm());
  EXPECT_EQ(f.operands, 2ull * 100000 * 100000 * 2);
  EXPECT_EQ(f.outputs, 100000ull * 100000 * 2 + 2 * 256);
  EXPECT_EQ(f.reference, 3ull * 100000 * 100000 * 8);
  Case sampled = huge_gemm();
  sampled.sample_elements = 4096;  // the reference computes the sample of c, all of a and b
  EXPECT_EQ(case_footprint(sampled).reference, (2ull * 100000 * 100000 + 4096) * 8);
  EXPECT_EQ(f.host(true), f.host(false) + f.device());
}

TEST(MemoryAdmission, ACaseTooBigForTheHostIsRefusedWithItsFigures) {
  const Footprint f = case_footprint(huge_gemm());
  const std::string why = admission_refusal(f, {true, 0, uint64_t{24} << 30, 0});
  EXPECT_THAT(why, HasSubstr("needs "));
  EXPECT_THAT(why, HasSubstr("of host memory (operands 37.3G, outputs 18.6G, fp64 reference 224G), more than the 24G"));
  EXPECT_THAT(admission_refusal(f, {true, 0, std::nullopt, uint64_t{128} << 30}), HasSubstr("more than --max-memory 128G"));
  EXPECT_EQ(admission_refusal(f, {true, 0, std::nullopt, 0}), "");  // nothing known: admitted
}

TEST(MemoryAdmission, ADeviceOfItsOwnIsCheckedAgainstItsMemory) {
  Case c = huge_gemm();
  c.inputs.pop_back();
  c.outputs.clear();  // a alone: 18.6G on the device, and with its fp64 copy 93G on the host
  const Footprint f = case_footprint(c);
  EXPECT_EQ(admission_refusal(f, {false, uint64_t{80} << 30, uint64_t{512} << 30, 0}), "");
  EXPECT_THAT(admission_refusal(f, {false, uint64_t{16} << 30, uint64_t{512} << 30, 0}),
              HasSubstr("of device memory (operands 18.6G, outputs 0), more than the device's 16G"));
}

TEST(MemoryAdmission, TheHostsAvailableMemoryIsRead) {
  const auto available = host_available_bytes();
  ASSERT_TRUE(available.has_value()) << "/proc/meminfo has no MemAvailable";
  EXPECT_GT(*available, 0u);
}

TEST(MemoryAdmission, EachRankOfAHostGetsItsShareOfWhatIsAvailable) {
  const double whole = static_cast<double>(host_share_bytes(1));
  ASSERT_GT(whole, 0.0) << "this machine's /proc/meminfo has MemAvailable";
  // MemAvailable moves between the calls, a little.
  EXPECT_NEAR(4.0 * static_cast<double>(host_share_bytes(4)), whole, 0.05 * whole);
  EXPECT_NEAR(static_cast<double>(host_share_bytes(0)), whole, 0.05 * whole) << "no rank count is one rank";
}

}  // namespace
}  // namespace opcert
