// Faults injected into the CUDA backend's collectives for the failure tests (tests/mpi/
// cuda_collectives.sh), read from OPCERT_CUDA_TEST_FAULT:
//   OPCERT_CUDA_TEST_FAULT="hang:1@2"         rank 1 hangs at its 2nd collective
//   OPCERT_CUDA_TEST_FAULT="exit:1@2,hang:0@3" rank 1 exits at its 2nd, rank 0 hangs at its 3rd
// "hang" skips the NCCL call and sleeps inside run_op (as a deadlocked rank would), so the other
// ranks' NCCL calls must end at their deadline; "exit" ends the process at once (as a crash would).
// Unset or empty: no faults. The counting lives here; acting on a fault is the caller's.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace opcert::cuda {

struct TestFault {
  enum class Action { kHang, kExit };
  Action action = Action::kHang;
  int rank = 0;
  int at = 1;  // the at-th collective of this process (1-based)
};

/// Parses "ACTION:RANK@K[,...]". Throws sdk::Error (INVALID_ARGUMENT) naming the bad item.
std::vector<TestFault> parse_test_faults(std::string_view text);

/// Counts the collectives of one process and says when one of them must fail.
class TestFaults {
 public:
  TestFaults() = default;
  explicit TestFaults(std::vector<TestFault> faults) : faults_(std::move(faults)) {}
  /// From OPCERT_CUDA_TEST_FAULT (no faults when unset). Throws as parse_test_faults.
  static TestFaults from_env();

  /// Counts one collective on `rank`; the fault it must suffer, if any.
  std::optional<TestFault::Action> next_collective(int rank);

 private:
  std::vector<TestFault> faults_;
  int calls_ = 0;
};

}  // namespace opcert::cuda
