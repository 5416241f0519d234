#include "collectives/cpu_comm.h"

#include <cstring>
#include <random>
#include <string>

namespace opcert::cpu {
namespace {

constexpr uint32_t kIdBytes = 16;
constexpr uint8_t kMagic[8] = {'o', 'p', 'c', 'e', 'r', 't', 'c', '1'};

class LocalComm final : public CpuComm {
 public:
  int rank() const override { return 0; }
  int nranks() const override { return 1; }
  void run(const CollectiveArgs& a) override {
    if (aborted_) throw sdk::Error(OPCERT_ERROR_ABORTED, "the communicator was aborted");
    // On one rank every collective leaves x in y (avg divides by 1). Views may coincide.
    if (a.y_bytes != 0 && a.x != a.y) std::memmove(a.y, a.x, a.y_bytes);
  }
  void abort() override { aborted_ = true; }

 private:
  bool aborted_ = false;
};

}  // namespace

uint32_t cpu_comm_unique_id(uint8_t* id) {
  std::memcpy(id, kMagic, sizeof kMagic);
  std::random_device device;
  const uint64_t tag = (static_cast<uint64_t>(device()) << 32 | device()) & 0x3FFFFFFFFFFFFFFFull;
  std::memcpy(id + sizeof kMagic, &tag, sizeof tag);
  return kIdBytes;
}

std::unique_ptr<CpuComm> make_local_comm() { return std::make_unique<LocalComm>(); }

std::unique_ptr<CpuComm> make_cpu_comm(int rank, int nranks, const uint8_t* id, uint32_t id_bytes, double timeout_seconds) {
  if (id_bytes != kIdBytes || std::memcmp(id, kMagic, sizeof kMagic) != 0)
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "not a unique id of the CPU backend (comm_unique_id makes them)");
  if (nranks < 1 || rank < 0 || rank >= nranks)
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "rank " + std::to_string(rank) + " of " + std::to_string(nranks));
  uint64_t tag = 0;
  std::memcpy(&tag, id + sizeof kMagic, sizeof tag);
  if (auto mpi = make_mpi_comm(rank, nranks, tag, timeout_seconds > 0 ? timeout_seconds : 300.0)) return mpi;
  if (nranks == 1) return make_local_comm();
  throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, "the CPU backend's collectives across " + std::to_string(nranks) +
                                                 " ranks run on MPI: start opcert with an MPI launcher (mpirun -np " +
                                                 std::to_string(nranks) + " opcert run ...)");
}

}  // namespace opcert::cpu
