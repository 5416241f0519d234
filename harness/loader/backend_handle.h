// Host-side C++ view of one initialised backend behind the C ABI. Owns the opcert_backend state
// (finalized on destruction) and turns ABI errors into BackendError exceptions. Never calls a
// table entry past the table's struct_size, so older-minor plugins work.
#pragma once

#include <opcert/backend_abi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "loader/backend_source.h"
#include "model/package_identity.h"

namespace opcert {

/// An error returned by a backend through the ABI: its code and message.
class BackendError : public std::runtime_error {
 public:
  BackendError(opcert_error_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  opcert_error_code code() const { return code_; }

 private:
  opcert_error_code code_;
};

struct ImplementationInfo {
  std::string key;  // "cpu.gemm.blocked"
  std::string op;   // the catalogue op it implements
  std::string description;
};

struct DeviceDescription {
  opcert_device device{};
  std::string name;
  uint64_t memory_bytes = 0;
  int32_t compute_units = 0;
  std::string uuid;        // ABI 1.4; "" when the backend does not say (older backends never do)
  std::string pci_bus_id;  // ABI 1.4; "" when unknown or not a PCI device of its own
};

/// One backend a library of several lists (ABI 1.3 backend_list).
struct ListedBackend {
  std::string name;    // empty for a note about the library itself
  std::string entry;
  std::string origin;
  std::string error;   // why it cannot be served; empty when it can
};

/// Answer of a capability query.
struct SupportAnswer {
  bool supported = false;
  std::string reason;        // why not, when unsupported
  std::string library_call;  // when supported and the backend says (ABI 1.1): the library call it makes
};

class BackendHandle {
 public:
  /// Checks the table (non-null, compatible major, required entries present within struct_size)
  /// and initialises the backend. Throws BackendError with a one-line reason on failure.
  static std::unique_ptr<BackendHandle> open(const opcert_api* api, BackendSource source);

  /// Whether `api` is a library of several backends (ABI 1.3 backend_list), and those it lists.
  /// Throws BackendError when the listing fails.
  static bool lists_backends(const opcert_api* api);
  static std::vector<ListedBackend> list_backends(const opcert_api* api);
  ~BackendHandle();
  BackendHandle(const BackendHandle&) = delete;
  BackendHandle& operator=(const BackendHandle&) = delete;

  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  const std::string& vendor() const { return vendor_; }
  const std::string& description() const { return description_; }
  const PackageIdentity& package() const { return package_; }
  int32_t abi_major() const { return api_->abi_major; }
  int32_t abi_minor() const { return api_->abi_minor; }
  const BackendSource& source() const { return source_; }
  const std::vector<ImplementationInfo>& implementations() const { return impls_; }
  const std::vector<DeviceDescription>& devices() const { return devices_; }
  bool has_events() const;
  bool has_collectives() const;

  void* allocate(opcert_device device, uint64_t bytes, uint64_t alignment = 0);
  void free(opcert_device device, void* data);
  void copy(opcert_device device, opcert_copy_kind kind, void* dst, const void* src, uint64_t bytes);
  void synchronize(opcert_device device);
  SupportAnswer query(const opcert_op_call& call);
  void run(const opcert_op_call& call, opcert_comm* comm = nullptr);
  /// Moves what the latest run of `call` left pending into its outputs (ABI 1.1 publish_outputs;
  /// never timed); returns the bytes moved, 0 for a backend without the entry.
  uint64_t publish_outputs(const opcert_op_call& call);

  /// Device timing events (only when has_events()). Elapsed time waits for `stop`.
  opcert_event* create_event(opcert_device device);
  void destroy_event(opcert_event* event) noexcept;
  void record_event(opcert_event* event);
  double elapsed_ms(opcert_event* start, opcert_event* stop);

  /// Communicators (only when has_collectives()): rank 0's unique id, a communicator for rank
  /// `rank` of `nranks` that gives up after `timeout_seconds`, its release and its abort.
  std::vector<uint8_t> comm_unique_id();
  opcert_comm* comm_init(opcert_device device, int32_t rank, int32_t nranks, const std::vector<uint8_t>& id,
                         double timeout_seconds);
  void comm_destroy(opcert_comm* comm) noexcept;
  void comm_abort(opcert_comm* comm);

  const opcert_api& api() const { return *api_; }
  opcert_backend* raw() const { return backend_; }

  /// Throws BackendError for a non-null error (and destroys it); no-op for null.
  void check(opcert_error* error, const char* what) const;

 private:
  BackendHandle(const opcert_api* api, BackendSource source) : api_(api), source_(std::move(source)) {}

  const opcert_api* api_;
  opcert_backend* backend_ = nullptr;
  BackendSource source_;
  std::string name_, version_, vendor_, description_;
  PackageIdentity package_;
  std::vector<ImplementationInfo> impls_;
  std::vector<DeviceDescription> devices_;
};

/// Why a table cannot be used by this host (null, wrong major, truncated), or nullopt if it can.
std::optional<std::string> abi_incompatibility(const opcert_api* api);

}  // namespace opcert
