// Whether a case fits before it runs (docs/RELIABILITY.md, "A case too big"): its footprint from
// its shapes alone, against the memory its device and this host have, and --max-memory. A case
// that cannot fit is SKIPPED with the figures, instead of allocating until the machine gives out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "loader/backend_handle.h"
#include "model/case.h"

namespace opcert {

/// What running a case needs, in bytes: exact, with checked arithmetic. A case from a suite fits
/// kMaxCaseBytes (model/checked_size.h), so every figure here fits 64 bits; a case that does not
/// makes case_footprint, device() or host() throw SizeError, never a wrapped figure.
struct Footprint {
  uint64_t operands = 0;   // the inputs, generated on the host, and their copies on the device
  uint64_t outputs = 0;    // the outputs with their guards on the device, and read back to the host
  uint64_t reference = 0;  // the fp64 reference: every input element and each checked output element as a double
  /// On the device: inputs and guarded outputs. On the host: the generated inputs, the outputs read
  /// back and the reference (and the device's share too where the device is host memory).
  uint64_t device() const;
  uint64_t host(bool device_is_host) const;
};

/// The footprint of `c` from its tensor specs.
Footprint case_footprint(const Case& c);

/// MemAvailable of /proc/meminfo: what this host can give without swapping; nullopt when unknown.
std::optional<uint64_t> host_available_bytes();

/// One rank's share of MemAvailable when `local_ranks` ranks of a job run on this host: each gates
/// its own lanes and shared inputs with it (nothing coordinates them); 0 when MemAvailable is unknown.
uint64_t host_share_bytes(int local_ranks);

/// Whether `device`'s memory is the host's (the CPU backend's partitions): a case's device share
/// is then host memory too.
bool memory_is_host(const DeviceDescription& device);

/// The limits a case is admitted against.
struct MemoryLimits {
  bool device_is_host = true;
  uint64_t device_total = 0;                  // the device's memory (0: unknown, not checked)
  std::optional<uint64_t> host_available;     // nullopt: unknown, not checked
  uint64_t max_memory = 0;                    // --max-memory (0: none): caps the host's and the device's
};

/// The limits of a case on `device`: its memory, the host's available memory (where the device is
/// host memory, it is the host's too), and --max-memory.
MemoryLimits memory_limits(const DeviceDescription& device, uint64_t max_memory);

/// "" when `f` fits `limits`; else the reason a SKIPPED result gives, with the figures
/// ("needs 60.1G of host memory (operands 40G, outputs 20G, fp64 reference 160G), more than ...").
std::string admission_refusal(const Footprint& f, const MemoryLimits& limits);

}  // namespace opcert
