// The CPU backend's devices: the cores this process may run on, split into OPCERT_CPU_DEVICES
// partitions (default 1, the whole host), so that `--devices all` runs one worker per partition
// and a node's cores can be certified side by side (docs/ABI.md, "Devices of one process").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace opcert::cpu {

struct CpuPartition {
  std::vector<int> cpus;   // the logical CPUs it runs on
  std::string name;        // "host CPU" (one partition), "host CPU, cores 0-3", "host CPU, core 1 (shared by 2 devices)"
};

/// The logical CPUs this process may run on (its affinity mask), ascending.
std::vector<int> allowed_cpus();

/// OPCERT_CPU_DEVICES, or 1 when unset. Throws sdk::Error (invalid argument) for anything but a
/// count from 1 to 4096.
int partition_count_from_environment();

/// `count` partitions of `cpus`: contiguous slices of nearly equal size, or with more partitions
/// than CPUs one CPU each, shared round-robin (and named so).
std::vector<CpuPartition> split_cpus(const std::vector<int>& cpus, int count);

/// When OPCERT_DEVICE names a partition: runs this thread (and the threads it starts, OpenMP's
/// among them) on that partition's CPUs and sizes OpenMP's team to it. Throws sdk::Error (not
/// found) for an index without a partition. Does nothing when OPCERT_DEVICE is unset.
void pin_to_chosen_partition(const std::vector<CpuPartition>& partitions);

/// Partition `index` of `count`'s identity across runs (ABI 1.4 device_info uuid):
/// "CPU-<machine id>-<index>of<count>-cpus-<ranges>", from the systemd machine id (/etc/machine-id),
/// its place in the split and the logical CPUs it runs on, so that the same share of the same
/// host is the same device again (and partitions sharing a CPU differ). "" when the host has no
/// machine id. A partition is not a PCI device of its own: it has no PCI bus id.
std::string partition_uuid(const CpuPartition& partition, std::size_t index, std::size_t count);

}  // namespace opcert::cpu
