// The torch backend's communicator through its C ABI, on one process: a rank-1 communicator over
// Gloo runs collectives and refuses them once aborted, a missing rank makes comm_init time out
// instead of hang, and ids or memory that are not the backend's are refused with a reason.
// Two ranks in one process show a collective that a peer skips times out. Across processes,
// tests/mpi/mpi_torch_collectives.sh runs the whole collectives suite.
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "backends/declined.h"
#include "torch_host.h"

namespace opcert::torch_test {
namespace {

using test::abi::OpCall;
using test::abi::Session;

constexpr opcert_device kHost{OPCERT_DEVICE_CPU, 0};

opcert_tensor host_tensor(const char* name, std::vector<float>& data, const int64_t* shape) {
  return opcert_tensor{sizeof(opcert_tensor), name, data.data(), kHost, OPCERT_DTYPE_F32, 1, shape, nullptr, 0};
}

// Rank 0's fresh unique id ("" when it could not make one).
std::string unique_id(Session& s) {
  opcert_comm_unique_id_args u{sizeof(u), s.backend(), {}, 0};
  const auto made = s.take(s.api()->comm_unique_id(&u));
  EXPECT_EQ(made.code, OPCERT_ERROR_OK) << made.message;
  return std::string(reinterpret_cast<const char*>(u.id), u.id_bytes);
}

// comm_init of rank `rank` of `nranks` on the host with `id`.
test::abi::Outcome comm_init(Session& s, int rank, int nranks, double timeout_seconds, const std::string& id,
                             opcert_comm** comm) {
  opcert_comm_init_args a{};
  a.struct_size = sizeof(a);
  a.backend = s.backend();
  a.device = kHost;
  a.rank = rank;
  a.nranks = nranks;
  a.timeout_seconds = timeout_seconds;
  std::memcpy(a.id, id.data(), id.size());
  a.id_bytes = static_cast<uint32_t>(id.size());
  const auto outcome = s.take(s.api()->comm_init(&a));
  *comm = a.comm;
  return outcome;
}

// run_op on the communicator, then the device's synchronize.
test::abi::Outcome run(Session& s, const OpCall& c, opcert_comm* comm) {
  opcert_run_op_args a{sizeof(a), s.backend(), &c.call, comm};
  auto outcome = s.take(s.api()->run_op(&a));
  if (outcome.code != OPCERT_ERROR_OK) return outcome;
  opcert_synchronize_args sync{sizeof(sync), s.backend(), kHost};
  return s.take(s.api()->synchronize(&sync));
}

void abort_and_destroy(Session& s, opcert_comm* comm, bool abort) {
  if (abort) {
    opcert_comm_abort_args a{sizeof(a), s.backend(), comm};
    EXPECT_EQ(s.take(s.api()->comm_abort(&a)).code, OPCERT_ERROR_OK);
  }
  opcert_comm_destroy_args d{sizeof(d), s.backend(), comm};
  EXPECT_EQ(s.take(s.api()->comm_destroy(&d)).code, OPCERT_ERROR_OK);
}

class TorchCollectives : public ::testing::Test {
 protected:
  TorchCollectives() : session_(opcert_torch_backend_get_api()) {}

  void SetUp() override {
    if (session_.api()->comm_init == nullptr) GTEST_SKIP() << "this torch backend was built without c10d collectives";
  }

  // "" when the build runs the gloo keys, else why not.
  std::string gloo_missing() {
    std::vector<float> x(1), y(1);
    const int64_t shape[] = {1};
    const std::string key = "torch.all_reduce.gloo";  // OpCall points into it
    const OpCall c(key, {host_tensor("x", x, shape)}, {host_tensor("y", y, shape)}, {});
    const auto answer = session_.query(c.call);
    return answer.supported ? "" : answer.message;
  }

  Session session_;
};

TEST_F(TorchCollectives, OneRankRunsThenRefusesOnceAborted) {
  if (const std::string why = gloo_missing(); !why.empty()) GTEST_SKIP() << why;
  opcert_comm* comm = nullptr;
  ASSERT_EQ(comm_init(session_, 0, 1, 30, unique_id(session_), &comm).message, "");
  ASSERT_NE(comm, nullptr);
  std::vector<float> x{1.5f, -2.0f, 3.25f}, y(3, -99.0f);
  const int64_t shape[] = {3};
  const std::string key = "torch.all_reduce.gloo";
  const OpCall sum(key, {host_tensor("x", x, shape)}, {host_tensor("y", y, shape)},
                   {test::abi::Attr::text("reduce_op", "avg")});
  EXPECT_EQ(run(session_, sum, comm).message, "");
  EXPECT_EQ(y, x);  // one rank: the sum and the average are x

  opcert_comm_abort_args abort{sizeof(abort), session_.backend(), comm};
  EXPECT_EQ(session_.take(session_.api()->comm_abort(&abort)).code, OPCERT_ERROR_OK);
  y.assign(3, -99.0f);
  const auto refused = run(session_, sum, comm);
  EXPECT_EQ(refused.code, OPCERT_ERROR_ABORTED) << refused.message;
  EXPECT_EQ(y, std::vector<float>(3, -99.0f));
  abort_and_destroy(session_, comm, false);
}

TEST_F(TorchCollectives, MissingRankTimesOutInsteadOfHanging) {
  if (const std::string why = gloo_missing(); !why.empty()) GTEST_SKIP() << why;
  opcert_comm* comm = nullptr;
  const auto outcome = comm_init(session_, 0, 2, 1.0, unique_id(session_), &comm);  // rank 1 never comes
  EXPECT_EQ(outcome.code, OPCERT_ERROR_TIMEOUT) << outcome.message;
  EXPECT_NE(outcome.message.find("did not form"), std::string::npos) << outcome.message;
  EXPECT_EQ(comm, nullptr);
}

// Two ranks in one process (two backend instances): both join, then only rank 0 calls the
// collective. It must fail with TIMEOUT rather than wait, and the comms must still tear down.
TEST_F(TorchCollectives, ACollectiveAPeerNeverJoinsTimesOut) {
  if (const std::string why = gloo_missing(); !why.empty()) GTEST_SKIP() << why;
  Session peer(opcert_torch_backend_get_api());
  const std::string id = unique_id(session_);
  opcert_comm *comm0 = nullptr, *comm1 = nullptr;
  test::abi::Outcome joined0;
  std::thread rank0([&] { joined0 = comm_init(session_, 0, 2, 5.0, id, &comm0); });
  const auto joined1 = comm_init(peer, 1, 2, 5.0, id, &comm1);
  rank0.join();
  ASSERT_EQ(joined0.message, "");
  ASSERT_EQ(joined1.message, "");

  std::vector<float> x{1.0f, 2.0f}, y(2, -99.0f);
  const int64_t shape[] = {2};
  const std::string key = "torch.all_reduce.gloo";
  const OpCall sum(key, {host_tensor("x", x, shape)}, {host_tensor("y", y, shape)}, {});
  const auto alone = run(session_, sum, comm0);
  EXPECT_EQ(alone.code, OPCERT_ERROR_TIMEOUT) << alone.message;
  EXPECT_NE(alone.message.find("did not complete"), std::string::npos) << alone.message;
  EXPECT_EQ(y, std::vector<float>(2, -99.0f));  // never written late: Gloo works on staging copies
  abort_and_destroy(session_, comm0, true);
  abort_and_destroy(peer, comm1, true);
}

TEST_F(TorchCollectives, ForeignIdIsRefused) {
  opcert_comm* comm = nullptr;
  const auto outcome = comm_init(session_, 1, 2, 1.0, "opcertc1 not a torch id", &comm);
  EXPECT_EQ(outcome.code, OPCERT_ERROR_INVALID_ARGUMENT) << outcome.message;
  EXPECT_NE(outcome.message.find("torch backend"), std::string::npos) << outcome.message;
}

TEST_F(TorchCollectives, NcclKeysDeclineHostMemory) {
  std::vector<float> x(4), y(4);
  const int64_t shape[] = {4};
  const std::string key = "torch.all_reduce.nccl";
  const OpCall c(key, {host_tensor("x", x, shape)}, {host_tensor("y", y, shape)}, {});
  const auto answer = session_.query(c.call);
  // The nccl keys' operands live in CUDA memory: the parser says so before any limit of this build.
  test::abi::expect_declined(answer, "input 'x' is in host memory, expected CUDA device memory");
}

}  // namespace
}  // namespace opcert::torch_test
