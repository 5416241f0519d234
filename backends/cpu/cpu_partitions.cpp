#include "cpu_partitions.h"

#include <omp.h>
#include <opcert/sdk/error.h>
#include <sched.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <map>
#include <thread>

namespace opcert::cpu {
namespace {

// "0-3", "0-3,8-11", "5": consecutive CPUs as ranges.
std::string ranges(const std::vector<int>& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    text += (text.empty() ? "" : ",") + std::to_string(cpus[i]) + (j > i ? "-" + std::to_string(cpus[j]) : "");
    i = j + 1;
  }
  return text;
}

int parse_count(const char* text, const char* variable, int max) {
  const std::string s(text);
  int value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || error != std::errc() || end != s.data() + s.size() || value < 0 || value > max)
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, std::string(variable) + "='" + s + "' is not a number from " +
                                                        (max == 4096 ? "1 to 4096" : "0 to " + std::to_string(max)));
  return value;
}

// The systemd machine id (32 hex digits), or "" when the host has none.
std::string machine_id() {
  for (const char* path : {"/etc/machine-id", "/var/lib/dbus/machine-id"}) {
    std::ifstream in(path);
    std::string id;
    if (in >> id && id.size() == 32 && id.find_first_not_of("0123456789abcdef") == std::string::npos) return id;
  }
  return "";
}

}  // namespace

std::string partition_uuid(const CpuPartition& partition, std::size_t index, std::size_t count) {
  static const std::string id = machine_id();
  if (id.empty()) return "";
  return "CPU-" + id + "-" + std::to_string(index) + "of" + std::to_string(count) + "-cpus-" + ranges(partition.cpus);
}

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  if (cpus.empty())  // no mask to read: every CPU the machine has
    for (unsigned c = 0; c < std::max(1u, std::thread::hardware_concurrency()); ++c) cpus.push_back(static_cast<int>(c));
  return cpus;
}

int partition_count_from_environment() {
  const char* text = std::getenv("OPCERT_CPU_DEVICES");
  if (text == nullptr) return 1;
  const int count = parse_count(text, "OPCERT_CPU_DEVICES", 4096);
  if (count == 0)
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "OPCERT_CPU_DEVICES='0' is not a number from 1 to 4096");
  return count;
}

std::vector<CpuPartition> split_cpus(const std::vector<int>& cpus, int count) {
  std::vector<CpuPartition> partitions(static_cast<std::size_t>(count));
  if (count == 1) {
    partitions[0] = {cpus, "host CPU"};  // the whole host, named as it always was
    return partitions;
  }
  const std::size_t n = cpus.size();
  const auto parts = static_cast<std::size_t>(count);
  if (parts <= n) {
    for (std::size_t p = 0; p < parts; ++p) {
      auto& part = partitions[p];
      part.cpus.assign(cpus.begin() + static_cast<std::ptrdiff_t>(p * n / parts),
                       cpus.begin() + static_cast<std::ptrdiff_t>((p + 1) * n / parts));
      part.name = std::string("host CPU, ") + (part.cpus.size() == 1 ? "core " : "cores ") + ranges(part.cpus);
    }
    return partitions;
  }
  std::map<int, int> sharing;  // cpu -> partitions on it
  for (std::size_t p = 0; p < parts; ++p) ++sharing[cpus[p % n]];
  for (std::size_t p = 0; p < parts; ++p) {
    const int cpu = cpus[p % n];
    const std::string shared = sharing[cpu] > 1 ? " (shared by " + std::to_string(sharing[cpu]) + " devices)" : "";
    partitions[p] = {{cpu}, "host CPU, core " + std::to_string(cpu) + shared};
  }
  return partitions;
}

void pin_to_chosen_partition(const std::vector<CpuPartition>& partitions) {
  const char* text = std::getenv("OPCERT_DEVICE");
  if (text == nullptr) return;
  const int index = parse_count(text, "OPCERT_DEVICE", 1 << 20);
  if (static_cast<std::size_t>(index) >= partitions.size())
    throw sdk::Error(OPCERT_ERROR_NOT_FOUND, "OPCERT_DEVICE=" + std::to_string(index) + ": the CPU backend has " +
                                                 std::to_string(partitions.size()) +
                                                 " device(s) (OPCERT_CPU_DEVICES sets how many)");
  const CpuPartition& part = partitions[static_cast<std::size_t>(index)];
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int cpu : part.cpus) CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0)
    throw sdk::Error(OPCERT_ERROR_DEVICE, "cannot run on the CPUs of device " + std::to_string(index) + " (" +
                                              part.name + "): sched_setaffinity failed");
  omp_set_num_threads(static_cast<int>(part.cpus.size()));
}

}  // namespace opcert::cpu
