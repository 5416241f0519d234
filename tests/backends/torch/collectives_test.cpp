// The torch backend's communicator through its C ABI, on one process: a rank-1 communicator over
// Gloo runs collectives and refuses them once aborted, a missing rank makes comm_init time out
// instead of hang, and ids or memory that are not the backend's are refused with a reason.
// Across ranks, tests/mpi/mpi_torch_collectives.sh runs the whole collectives suite.
#include <cstring>
#include <string>
#include <vector>

#include "torch_host.h"

namespace opcert::torch_test {
namespace {

using test::abi::OpCall;
using test::abi::Session;

constexpr opcert_device kHost{OPCERT_DEVICE_CPU, 0};

opcert_tensor host_tensor(const char* name, std::vector<float>& data, const int64_t* shape) {
  return opcert_tensor{sizeof(opcert_tensor), name, data.data(), kHost, OPCERT_DTYPE_F32, 1, shape, nullptr, 0};
}

class TorchCollectives : public ::testing::Test {
 protected:
  TorchCollectives() : session_(opcert_torch_backend_get_api()) {}

  const opcert_api* api() const { return session_.api(); }

  // "" when the build runs the gloo keys, else why not.
  std::string gloo_missing() {
    std::vector<float> x(1), y(1);
    const int64_t shape[] = {1};
    const std::string key = "torch.all_reduce.gloo";  // OpCall points into it
    const OpCall c(key, {host_tensor("x", x, shape)}, {host_tensor("y", y, shape)}, {});
    const auto answer = session_.query(c.call);
    return answer.supported ? "" : answer.message;
  }

  // comm_init of rank `rank` of `nranks` on the host with rank 0's fresh id (or `id` when given).
  test::abi::Outcome init(int rank, int nranks, double timeout_seconds, opcert_comm** comm, const std::string& id = {}) {
    opcert_comm_init_args a{};
    a.struct_size = sizeof(a);
    a.backend = session_.backend();
    a.device = kHost;
    a.rank = rank;
    a.nranks = nranks;
    a.timeout_seconds = timeout_seconds;
    if (id.empty()) {
      opcert_comm_unique_id_args u{sizeof(u), session_.backend(), {}, 0};
      const auto made = session_.take(api()->comm_unique_id(&u));
      if (made.code != OPCERT_ERROR_OK) return made;
      std::memcpy(a.id, u.id, u.id_bytes);
      a.id_bytes = u.id_bytes;
    } else {
      std::memcpy(a.id, id.data(), id.size());
      a.id_bytes = static_cast<uint32_t>(id.size());
    }
    const auto outcome = session_.take(api()->comm_init(&a));
    *comm = a.comm;
    return outcome;
  }

  test::abi::Outcome run(const OpCall& c, opcert_comm* comm) {
    opcert_run_op_args a{sizeof(a), session_.backend(), &c.call, comm};
    auto outcome = session_.take(api()->run_op(&a));
    if (outcome.code != OPCERT_ERROR_OK) return outcome;
    opcert_synchronize_args s{sizeof(s), session_.backend(), kHost};
    return session_.take(api()->synchronize(&s));
  }

  void destroy(opcert_comm* comm) {
    opcert_comm_destroy_args d{sizeof(d), session_.backend(), comm};
    EXPECT_EQ(session_.take(api()->comm_destroy(&d)).code, OPCERT_ERROR_OK);
  }

  Session session_;
};

TEST_F(TorchCollectives, OneRankRunsThenRefusesOnceAborted) {
  if (const std::string why = gloo_missing(); !why.empty()) GTEST_SKIP() << why;
  opcert_comm* comm = nullptr;
  ASSERT_EQ(init(0, 1, 30, &comm).message, "");
  ASSERT_NE(comm, nullptr);
  std::vector<float> x{1.5f, -2.0f, 3.25f}, y(3, -99.0f);
  const int64_t shape[] = {3};
  const std::string key = "torch.all_reduce.gloo";
  const OpCall sum(key, {host_tensor("x", x, shape)}, {host_tensor("y", y, shape)},
                   {test::abi::Attr::text("reduce_op", "avg")});
  EXPECT_EQ(run(sum, comm).message, "");
  EXPECT_EQ(y, x);  // one rank: the sum and the average are x

  opcert_comm_abort_args abort{sizeof(abort), session_.backend(), comm};
  EXPECT_EQ(session_.take(api()->comm_abort(&abort)).code, OPCERT_ERROR_OK);
  y.assign(3, -99.0f);
  const auto refused = run(sum, comm);
  EXPECT_EQ(refused.code, OPCERT_ERROR_ABORTED) << refused.message;
  EXPECT_EQ(y, std::vector<float>(3, -99.0f));
  destroy(comm);
}

TEST_F(TorchCollectives, MissingRankTimesOutInsteadOfHanging) {
  if (const std::string why = gloo_missing(); !why.empty()) GTEST_SKIP() << why;
  opcert_comm* comm = nullptr;
  const auto outcome = init(0, 2, 1.0, &comm);  // rank 1 never comes
  EXPECT_EQ(outcome.code, OPCERT_ERROR_TIMEOUT) << outcome.message;
  EXPECT_NE(outcome.message.find("did not form"), std::string::npos) << outcome.message;
  EXPECT_EQ(comm, nullptr);
}

TEST_F(TorchCollectives, ForeignIdIsRefused) {
  opcert_comm* comm = nullptr;
  const auto outcome = init(1, 2, 1.0, &comm, "opcertc1 not a torch id");
  EXPECT_EQ(outcome.code, OPCERT_ERROR_INVALID_ARGUMENT) << outcome.message;
  EXPECT_NE(outcome.message.find("torch backend"), std::string::npos) << outcome.message;
}

TEST_F(TorchCollectives, NcclKeysDeclineHostMemory) {
  std::vector<float> x(4), y(4);
  const int64_t shape[] = {4};
  const std::string key = "torch.all_reduce.nccl";
  const OpCall c(key, {host_tensor("x", x, shape)}, {host_tensor("y", y, shape)}, {});
  const auto answer = session_.query(c.call);
  EXPECT_EQ(answer.code, OPCERT_ERROR_OK);
  EXPECT_FALSE(answer.supported);
  // Without ProcessGroupNCCL the build says so; with it, the memory kind is the reason.
  EXPECT_TRUE(answer.message.find("ProcessGroupNCCL") != std::string::npos ||
              answer.message.find("CUDA memory") != std::string::npos)
      << answer.message;
}

}  // namespace
}  // namespace opcert::torch_test
