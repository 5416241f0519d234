// `--devices all|LIST` (docs/CLI.md): which of a backend's devices a run uses, one worker process
// per device, each pinned to its device through OPCERT_DEVICE (docs/ABI.md). Without the flag a
// run uses the backend's first device and tags nothing, as it always has.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "loader/backend_handle.h"
#include "model/device_tag.h"

namespace opcert {

/// The environment variable a worker is pinned with: the index of the one device it serves.
inline constexpr const char* kDeviceEnvironmentVariable = "OPCERT_DEVICE";

/// How the chosen devices share a run's cases (--device-mode, docs/CLI.md "Devices"). kEach: every
/// device runs every case (a node's certificate names a bad device). kSpread: the devices of a
/// backend share its cases, each lane taking the next case not yet started, so the run ends sooner.
enum class DeviceMode { kEach, kSpread };

/// "each" or "spread"; InputError naming --device-mode otherwise.
DeviceMode parse_device_mode(const std::string& text);
/// The flag's word for `mode`, as parse_device_mode takes it.
const char* device_mode_name(DeviceMode mode);

struct DeviceChoice {
  bool all = false;
  std::vector<int> indices;  // when not `all`: ascending, without duplicates
};

/// "all", or comma-separated device indices ("0,2"). Throws InputError naming --devices and the
/// bad item otherwise.
DeviceChoice parse_device_choice(const std::string& text);

/// The indices `choice` names on `backend`, which has `count` devices. Throws InputError for an
/// index the backend lacks (naming its devices), or for a backend without devices.
std::vector<int> resolve_devices(const DeviceChoice& choice, const std::string& backend, std::size_t count);

/// The devices local rank `local_rank` of the `local_size` ranks on one node takes: every
/// `local_size`-th of `devices` from position `local_rank`, so that the ranks of a node share its
/// devices without overlap. A rank beyond the device count takes none.
std::vector<int> node_share(const std::vector<int>& devices, int local_rank, int local_size);

/// The tag of `backend`'s device `index` on this host: its name, UUID and PCI bus id as the backend
/// reports them (ABI 1.4). `index` must be one of its devices (resolve_devices checked it).
DeviceTag device_tag_of(const BackendHandle& backend, int index);

}  // namespace opcert
