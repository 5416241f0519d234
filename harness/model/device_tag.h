// The device a result was measured on, when the run chose its devices (`--devices`): which of the
// backend's devices, on which host. Absent from results of a run without `--devices`, which run
// on the backend's first device and read as they always have.
#pragma once

#include <optional>
#include <string>

namespace opcert {

struct DeviceTag {
  int index = 0;      // among the backend's devices as that host lists them (OPCERT_DEVICE)
  std::string name;   // the backend's name for it ("host CPU, cores 0-7", "NVIDIA H100 80GB HBM3")
  std::string host;   // the host it is on: ranks of an MPI job run on several
  std::string uuid;        // the physical device, as its backend names it (ABI 1.4); "" unknown
  std::string pci_bus_id;  // "0000:1b:00.0"; "" unknown or not a PCI device of its own
  bool operator==(const DeviceTag&) const = default;
};

/// How reports name a result's place: "" without a device tag, "device 1", or "rank 2 device 1"
/// when the result came from a rank of an MPI job (device indices repeat on every node).
std::string device_label(const std::optional<DeviceTag>& device, const std::optional<int>& rank);

/// device_label with the device's UUID: "device 1 (UUID GPU-9cf20265-...)", "(UUID unknown)" when
/// its backend does not say; "" without a device tag. What names a device in a verdict.
std::string device_identity_label(const std::optional<DeviceTag>& device, const std::optional<int>& rank);

/// A device identity for people: the text itself, or "unknown" when the backend did not say.
std::string identity_text(const std::string& uuid_or_bus_id);

/// This host's name, as a DeviceTag's host; "" when the system will not say.
std::string this_host_name();

}  // namespace opcert
