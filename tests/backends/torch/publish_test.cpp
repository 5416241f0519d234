// The torch backend's results published after timing (ABI 1.1, backends/torch/pending_outputs.h):
// a host of 1.1 finds the output untouched after run_op until it publishes; a host of 1.0, which
// never publishes, finds it written by run_op itself.
#include "torch_host.h"

namespace opcert::torch_test {
namespace {

const std::vector<double> kRow = {1, 2, 3};

double softmax_of_last() {
  const double z = std::exp(-2.0) + std::exp(-1.0) + 1;
  return 1 / z;
}

// The softmax of one row into a sentinel-filled output, read back right after run_op.
Operand softmax_without_publishing(TorchHost& host) {
  host.set_publishing(false);
  std::vector<Operand> out{Operand::output("y", OPCERT_DTYPE_F32, {1, 3})};
  EXPECT_EQ(host.run("torch.softmax.native", {Operand::of("x", OPCERT_DTYPE_F32, {1, 3}, kRow)}, out).message, "");
  return out[0];
}

TEST(TorchPublish, AHostThatPublishesFindsTheOutputUntouchedUntilItDoes) {
  TorchHost host(1);
  const Operand y = softmax_without_publishing(host);
  EXPECT_EQ(y.bytes, std::vector<uint8_t>(y.bytes.size(), 0xA5)) << "run_op wrote the output inside the timed call";

  host.set_publishing(true);
  std::vector<Operand> out{Operand::output("y", OPCERT_DTYPE_F32, {1, 3})};
  ASSERT_EQ(host.run("torch.softmax.native", {Operand::of("x", OPCERT_DTYPE_F32, {1, 3}, kRow)}, out).message, "");
  EXPECT_NEAR(out[0].at(2), softmax_of_last(), 4 * kF32Eps);
}

TEST(TorchPublish, AHostOfOnePointZeroGetsTheOutputFromRunOp) {
  TorchHost host(0);
  const Operand y = softmax_without_publishing(host);
  EXPECT_NEAR(y.at(2), softmax_of_last(), 4 * kF32Eps);
}

}  // namespace
}  // namespace opcert::torch_test
