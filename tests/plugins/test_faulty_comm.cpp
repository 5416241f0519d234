// "faulty": the CPU backend's collectives (keys "faulty.<op>.mpi"), except that the ranks named
// in OPCERT_TEST_FAULT misbehave at their k-th collective:
//   OPCERT_TEST_FAULT="exit:1@2,hang:2@2"   rank 1 exits at its 2nd collective, rank 2 hangs there
// "exit" ends the process at once (as a crash would); "hang" sleeps forever inside run_op,
// ignoring every timeout (as a deadlocked driver would); "wrong" completes the collective, then
// flips the bits of the first byte of its output (a silent wrong result). The MPI failure tests use it.
#include <opcert/sdk/backend.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "collectives/collective_impls.h"
#include "collectives/cpu_comm.h"

namespace {

struct Fault {
  std::string action;  // "exit" or "hang"
  int rank = -1;
  int at = 0;
};

std::vector<Fault> faults_from_env() {
  std::vector<Fault> faults;
  const char* text = std::getenv("OPCERT_TEST_FAULT");
  std::stringstream all(text ? text : "");
  std::string item;
  while (std::getline(all, item, ',')) {
    const auto colon = item.find(':'), at = item.find('@');
    if (colon == std::string::npos || at == std::string::npos) continue;
    faults.push_back({item.substr(0, colon), std::stoi(item.substr(colon + 1, at - colon - 1)), std::stoi(item.substr(at + 1))});
  }
  return faults;
}

class FaultyBackend : public opcert::sdk::Backend, public opcert::cpu::CpuCollectives {
 public:
  static constexpr bool kHasCollectives = true;

  FaultyBackend() : CpuCollectives(static_cast<const opcert::sdk::Backend&>(*this)), faults_(faults_from_env()) {
    for (auto impl : opcert::cpu::collective_implementations()) {
      impl.key = "faulty." + impl.op + ".mpi";
      add(std::move(impl));
    }
  }
  opcert::sdk::BackendInfo info() const override { return {"faulty", "1.0", "opcert tests", "collectives with injected faults"}; }

  void run_collective(const opcert::sdk::OpCall& call, opcert_comm* comm) override {
    ++calls_;
    const int rank = reinterpret_cast<opcert::cpu::CpuComm*>(comm)->rank();
    bool wrong = false;
    for (const Fault& f : faults_) {
      if (f.rank != rank || f.at != calls_) continue;
      if (f.action == "exit") _exit(3);
      if (f.action == "hang")
        for (;;) pause();
      wrong = wrong || f.action == "wrong";
    }
    CpuCollectives::run_collective(call, comm);
    if (wrong && call.output_at(0).numel() > 0) *call.output_at(0).data<unsigned char>() ^= 0xFF;
  }

 private:
  std::vector<Fault> faults_;
  int calls_ = 0;
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(FaultyBackend)
