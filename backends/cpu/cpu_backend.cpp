// The portable CPU fallback backend: host memory, every op of the catalogue (docs/OPS.md),
// OpenMP threads, AVX-512 kernels where the CPU has them; collectives on MPI (collectives/).
#include <opcert/sdk/backend.h>

#include <thread>

#include "collectives/collective_impls.h"
#include "cpu_implementations.h"
#include "cpu_partitions.h"

namespace opcert::cpu {
namespace {

class CpuBackend : public sdk::Backend, public CpuCollectives {
 public:
  static constexpr bool kHasCollectives = true;

  CpuBackend() : CpuCollectives(static_cast<const sdk::Backend&>(*this)) {
    // Every op file registered its own (cpu_implementations.h), the collectives too (ops/collectives.cpp);
    // they run on the communicator this class also is.
    for (auto& impl : CpuImplementations::make_all()) add(std::move(impl));
    // The partitions come from the mask this process started with, before pinning narrows it, so
    // that the runner and its pinned workers list the same devices.
    partitions_ = split_cpus(allowed_cpus(), partition_count_from_environment());
    pin_to_chosen_partition(partitions_);
  }

  sdk::BackendInfo info() const override {
    return {"cpu", "0.2.0", "opcert", "portable CPU fallback backend"};
  }

  std::vector<sdk::DeviceInfo> devices() const override {
    if (partitions_.size() == 1) {  // the whole host, listed as it always was
      const auto threads = static_cast<int32_t>(std::thread::hardware_concurrency());
      return {sdk::DeviceInfo{{OPCERT_DEVICE_CPU, 0}, partitions_[0].name, 0, threads, partition_uuid(partitions_[0], 0, 1), ""}};
    }
    std::vector<sdk::DeviceInfo> devices;
    for (std::size_t i = 0; i < partitions_.size(); ++i)
      devices.push_back({{OPCERT_DEVICE_CPU, static_cast<int32_t>(i)}, partitions_[i].name, 0,
                         static_cast<int32_t>(partitions_[i].cpus.size()), partition_uuid(partitions_[i], i, partitions_.size()), ""});
    return devices;
  }

 private:
  std::vector<CpuPartition> partitions_;
};

}  // namespace
}  // namespace opcert::cpu

OPCERT_SDK_DEFINE_BUILTIN(opcert_cpu_backend_get_api, opcert::cpu::CpuBackend)
