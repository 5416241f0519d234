// One case's golden file: the reference reads back exactly, whole or sampled, and the file is
// refused for another case, another seed, inputs that differ by one byte or a different sample.
#include "golden/golden_case.h"

#include <gtest/gtest.h>

#include "golden/golden_set.h"

namespace opcert {
namespace {

Case two_output_case() {
  Case c;
  c.suite = "smoke";
  c.id = "toy.bf16.n6";
  c.op = "toy";
  c.dtype = "bf16";
  c.seed = 7;
  c.inputs = {TensorSpec{"x", OPCERT_DTYPE_BF16, {2, 3}, {}}};
  c.outputs = {TensorSpec{"y", OPCERT_DTYPE_BF16, {2, 3}, {}}, TensorSpec{"lse", OPCERT_DTYPE_F32, {100}, {}}};
  return c;
}

std::vector<HostTensor> inputs_of(const Case& c) {
  HostTensor x(c.inputs[0]);
  for (std::size_t i = 0; i < x.bytes.size(); ++i) x.bytes[i] = static_cast<std::byte>(i * 7 + 1);
  return {x};
}

std::vector<ReferenceOutput> reference_of() {
  ReferenceOutput y{"y", {}, {1, 2, 3, 4, 5, 6}, {1, 1, 2, 2, 3, 3}, {}};
  ReferenceOutput lse{"lse", {0, 50, 99}, {0.5, -0.25, 8}, {}, {1.5, 2, 4}};
  return {y, lse};
}

SamplePlan plan_of() { return {{"lse", {0, 50, 99}}}; }

std::vector<ReferenceOutput> round_trip(const Case& written, const Case& read, const std::vector<HostTensor>& inputs,
                                        const SamplePlan& plan = plan_of()) {
  const auto file = encode_golden_case(written, "smoke", inputs_of(written), reference_of()).serialize();
  return decode_golden_case(SafetensorsFile::parse(file, "case.safetensors"), read, inputs, plan);
}

std::string refusal(const Case& read, const std::vector<HostTensor>& inputs, const SamplePlan& plan = plan_of()) {
  try {
    round_trip(two_output_case(), read, inputs, plan);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(GoldenCase, TheReferenceReadsBackExactlyWholeAndSampled) {
  const Case c = two_output_case();
  const auto got = round_trip(c, c, inputs_of(c));
  ASSERT_EQ(got.size(), 2u);
  const auto want = reference_of();
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(got[i].indices, want[i].indices);
    EXPECT_EQ(got[i].values, want[i].values);
    EXPECT_EQ(got[i].magnitude, want[i].magnitude);
    EXPECT_EQ(got[i].condition, want[i].condition);
  }
  // A whole output keeps its shape for readers outside opcert.
  const auto file = encode_golden_case(c, "smoke", inputs_of(c), reference_of()).serialize();
  const auto f = SafetensorsFile::parse(file, "t");
  EXPECT_EQ(f.at("reference.y.values").shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f.at("reference.lse.values").shape, (std::vector<int64_t>{3}));
  EXPECT_FALSE(f.has("reference.y.condition")) << "no condition given, none stored";
  EXPECT_EQ(f.metadata_at("seed"), "7");
  EXPECT_EQ(f.metadata_at("input.x.sha256").size(), 64u);
}

TEST(GoldenCase, AFileIsRefusedForAnotherCaseSeedInputOrSample) {
  const Case c = two_output_case();
  Case other = c;
  other.id = "toy.bf16.n7";
  EXPECT_NE(refusal(other, inputs_of(c)).find("holds case 'toy.bf16.n6'"), std::string::npos);
  Case reseeded = c;
  reseeded.seed = 8;
  EXPECT_NE(refusal(reseeded, inputs_of(c)).find("seed 7"), std::string::npos);

  auto changed = inputs_of(c);
  changed[0].bytes[5] ^= std::byte{1};
  EXPECT_NE(refusal(c, changed).find("input 'x' generated here differs"), std::string::npos);

  EXPECT_NE(refusal(c, inputs_of(c), {}).find("output 'lse'"), std::string::npos) << "the run checks all, the file 3";
  EXPECT_NE(refusal(c, inputs_of(c), {{"lse", {0, 51, 99}}}).find("sample differs"), std::string::npos);
}

TEST(GoldenCase, FileNamesAreSafeAndNeverShared) {
  EXPECT_EQ(golden_file_name("gemm.bf16.m64n48k80.nk"), "gemm.bf16.m64n48k80.nk.safetensors");
  EXPECT_NE(golden_file_name("a/b"), golden_file_name("a_b"));
  EXPECT_EQ(golden_file_name("a/b"), "a%2Fb.safetensors");
  EXPECT_NE(golden_file_name("a%2Fb"), golden_file_name("a/b"));
  EXPECT_NE(golden_file_name("..").front(), '.');
}

}  // namespace
}  // namespace opcert
