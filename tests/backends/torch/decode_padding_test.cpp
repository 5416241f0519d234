// The torch peer's padded decode batch (backends/torch/ops/decode_padding.h): where each packed key
// goes in the padded buffer and which keys each query row attends, computed on the host here; and
// kept_buffer (backends/torch/kept_buffers.h), the buffers a user allocates once and reuses.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kept_buffers.h"
#include "ops/decode_padding.h"

namespace opcert::torch_backend {
namespace {

std::vector<int64_t> values(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kLong).contiguous().view(-1);
  return {c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel()};
}

// Three sequences of 3, 0 and 2 keys: the longest is 3, so sequence b's rows start at 3b.
const at::Tensor kCu = at::tensor(std::vector<int32_t>{0, 3, 3, 5});

TEST(TorchDecodePadding, EachPackedKeyGoesToItsSequencesRowsAndTheMaskHoldsItsKeys) {
  const DecodePadding pad = decode_padding(kCu, 3, 5, -1);
  EXPECT_EQ(values(pad.rows), (std::vector<int64_t>{0, 1, 2, 6, 7}));
  ASSERT_EQ(pad.mask.sizes(), (std::vector<int64_t>{3, 1, 1, 3}));
  EXPECT_EQ(values(pad.mask), (std::vector<int64_t>{1, 1, 1, 0, 0, 0, 1, 1, 0}));
}

TEST(TorchDecodePadding, AWindowKeepsTheLastWindowPlusOneKeysOfEachSequence) {
  EXPECT_EQ(values(decode_padding(kCu, 3, 5, 0).mask), (std::vector<int64_t>{0, 0, 1, 0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(values(decode_padding(kCu, 3, 5, 1).mask), (std::vector<int64_t>{0, 1, 1, 0, 0, 0, 1, 1, 0}));
}

TEST(TorchKeptBuffer, IsMadeZeroOnceThenReusedUntilItsShapeOrLayoutChanges) {
  const auto opts = at::TensorOptions().dtype(at::kFloat);
  at::Tensor first = kept_buffer("test.kept", {2, 3}, {}, opts);
  EXPECT_EQ(first.count_nonzero().item<int64_t>(), 0);
  first.fill_(7);
  const at::Tensor again = kept_buffer("test.kept", {2, 3}, {}, opts);
  EXPECT_EQ(again.data_ptr(), first.data_ptr());
  EXPECT_EQ(again.sum().item<float>(), 42);  // the same storage, as its user left it
  const at::Tensor outer = kept_buffer("test.kept", {2, 3}, {1, 2}, opts);
  EXPECT_EQ(outer.strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(outer.count_nonzero().item<int64_t>(), 0);
  const at::Tensor other = kept_buffer("test.other", {2, 3}, {1, 2}, opts);
  EXPECT_NE(other.data_ptr(), outer.data_ptr());
}

}  // namespace
}  // namespace opcert::torch_backend
