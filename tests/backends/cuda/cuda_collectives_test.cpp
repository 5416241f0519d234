// The CUDA backend's collectives on one GPU as a single rank (label gpu; the MPI test
// tests/mpi/cuda_collectives.sh runs them across GPUs): every case of suites/collectives.json
// passes on a one-rank NCCL communicator, an aborted communicator refuses the next call, and a
// build without NCCL declines every collective with the reason. Skips, saying why, without a GPU.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_backend_fixture.h"
#include "session/execution/prepared_collective.h"
#include "check/suite.h"

namespace opcert {
namespace {

constexpr double kTimeoutSeconds = 60;

class CudaCollectives : public CudaBackendTest {
 protected:
  opcert_device device() const { return backend_->devices().at(0).device; }
  opcert_comm* one_rank_comm() { return backend_->comm_init(device(), 0, 1, backend_->comm_unique_id(), kTimeoutSeconds); }
};

TEST_F(CudaCollectives, EveryCollectiveIsListedUnderAnNcclKey) {
  EXPECT_TRUE(backend_->has_collectives());
  std::map<std::string, std::string> keys;
  for (const auto& impl : backend_->implementations()) keys[impl.op] = impl.key;
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"})
    EXPECT_EQ(keys[op], std::string("cuda.") + op + ".nccl");
}

#if OPCERT_TEST_WITH_NCCL

TEST_F(CudaCollectives, EveryCaseOfTheSuitePassesOnOneRank) {
  const Suite suite = load_suite("collectives", 1);
  opcert_comm* comm = one_rank_comm();
  std::map<std::string, int> passed;
  for (const auto& impl : backend_->implementations()) {
    for (const Case& c : suite.cases) {
      if (c.op != impl.op) continue;
      CaseResult early;
      auto prepared = PreparedCollective::prepare(*backend_, impl.key, c, device(), {0, 1}, early);
      if (!prepared) {
        EXPECT_EQ(early.status, Status::kSkipped) << c.id << ": " << early.message;
        EXPECT_FALSE(early.message.empty()) << c.id;
        continue;
      }
      prepared->run(comm);
      const CaseResult r = prepared->check();
      EXPECT_EQ(r.status, Status::kPassed) << c.id << ": " << r.message;
      ++passed[impl.op];
    }
  }
  backend_->comm_destroy(comm);
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"})
    EXPECT_GT(passed[op], 0) << op;
}

TEST_F(CudaCollectives, AnAbortedCommunicatorRefusesTheNextCollective) {
  const Suite suite = load_suite("collectives", 1);
  opcert_comm* comm = one_rank_comm();
  backend_->comm_abort(comm);
  const Case& c = suite.cases.at(0);
  CaseResult early;
  auto prepared = PreparedCollective::prepare(*backend_, "cuda." + c.op + ".nccl", c, device(), {0, 1}, early);
  ASSERT_TRUE(prepared) << early.message;
  try {
    prepared->run(comm);
    ADD_FAILURE() << "a collective ran on an aborted communicator";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), OPCERT_ERROR_ABORTED) << e.what();
  }
  backend_->comm_destroy(comm);
  // The backend is still usable: a new communicator works.
  opcert_comm* fresh = one_rank_comm();
  auto again = PreparedCollective::prepare(*backend_, "cuda." + c.op + ".nccl", c, device(), {0, 1}, early);
  ASSERT_TRUE(again) << early.message;
  again->run(fresh);
  EXPECT_EQ(again->check().status, Status::kPassed);
  backend_->comm_destroy(fresh);
}

TEST_F(CudaCollectives, AnotherBackendsUniqueIdIsRefused) {
  try {
    backend_->comm_init(device(), 0, 1, std::vector<uint8_t>(16, 7), kTimeoutSeconds);
    ADD_FAILURE() << "a 16-byte id was taken for an NCCL id";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), OPCERT_ERROR_INVALID_ARGUMENT) << e.what();
    EXPECT_NE(std::string(e.what()).find("unique id"), std::string::npos) << e.what();
  }
}

#else

TEST_F(CudaCollectives, WithoutNcclEveryCollectiveIsDeclinedSayingHowToBuildIt) {
  const Suite suite = load_suite("collectives", 1);
  for (const Case& c : suite.cases) {
    CaseResult early;
    EXPECT_FALSE(PreparedCollective::prepare(*backend_, "cuda." + c.op + ".nccl", c, device(), {0, 1}, early)) << c.id;
    EXPECT_EQ(early.status, Status::kSkipped) << c.id;
    if (early.message.find("root 1") != std::string::npos) continue;  // no rank 1 here: skipped before the backend is asked
    EXPECT_NE(early.message.find("-DOPCERT_WITH_NCCL=ON"), std::string::npos) << c.id << ": " << early.message;
  }
  try {
    backend_->comm_unique_id();
    ADD_FAILURE() << "a unique id without NCCL";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), OPCERT_ERROR_UNSUPPORTED) << e.what();
  }
}

#endif

}  // namespace
}  // namespace opcert
