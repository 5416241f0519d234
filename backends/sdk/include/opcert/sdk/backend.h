// opcert backend SDK: write a backend in plain C++, get a filled opcert_api table.
//
//   class MyBackend : public opcert::sdk::Backend { ... };
//   OPCERT_SDK_EXPORT_PLUGIN(MyBackend)          // a plugin library's exported entry point
//
// Exceptions thrown by a backend become opcert_error objects at the boundary (see sdk/error.h);
// none ever crosses it. Header-only, depends on backend_abi.h and the C++20 standard library only.
#pragma once

#include <opcert/backend_abi.h>
#include <opcert/sdk/error.h>
#include <opcert/sdk/op_call.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace opcert::sdk {

// Every member of a struct here has a default member initializer, including members added later:
// a plugin's designated initializers that name only the members of its day then still compile
// under -Wall -Wextra -Werror (GCC warns for an omitted member without one; tests/abi checks).

/// Whether an implementation accepts a call; when not, why (shown in reports as SKIPPED).
struct Support {
  bool supported = true;
  std::string reason{};
  static Support yes() { return {}; }
  static Support no(std::string why) { return {false, std::move(why)}; }
};

/// One implementation of one catalogue op, e.g. key "cpu.gemm.blocked" for op "gemm".
struct Implementation {
  std::string key{};
  std::string op{};
  std::string description{};
  /// Decides support from shapes, dtypes and attributes; data pointers may be null here.
  std::function<Support(const OpCall&)> query{};
  /// Computes the outputs; throws on failure.
  std::function<void(const OpCall&)> run{};
  /// Optional: the library call run makes for a supported call, one line, reported by query_op
  /// (ABI 1.1) so that a report can say what the peer ran; empty when there is nothing to say.
  std::function<std::string(const OpCall&)> library_call{};
};

/// Identity reported through backend_info.
struct BackendInfo {
  std::string name{};
  std::string version{};
  std::string vendor{};
  std::string description{};
};

/// Identity of one device reported through device_info.
struct DeviceInfo {
  opcert_device device{OPCERT_DEVICE_CPU, 0};
  std::string name{};
  uint64_t memory_bytes = 0;
  int32_t compute_units = 0;
  std::string uuid{};        ///< ABI 1.4: stable identity of the physical device; "" when unknown
  std::string pci_bus_id{};  ///< ABI 1.4: "0000:1b:00.0"; "" for a device that is not a PCI device of its own
};

/// Base class of a backend. The defaults describe one host-memory device; override the memory
/// functions for an accelerator. Implementations are added with add() in the constructor.
class Backend {
 public:
  virtual ~Backend() = default;

  virtual BackendInfo info() const = 0;

  virtual std::vector<DeviceInfo> devices() const { return {DeviceInfo{{OPCERT_DEVICE_CPU, 0}, "host", 0, 0}}; }

  virtual void* allocate(opcert_device, uint64_t bytes, uint64_t alignment) {
    const uint64_t align = alignment < 64 ? 64 : alignment;
    const uint64_t rounded = ((bytes == 0 ? 1 : bytes) + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded);
    if (p == nullptr) throw Error(OPCERT_ERROR_OUT_OF_MEMORY, "host allocation of " + std::to_string(bytes) + " bytes failed");
    return p;
  }
  virtual void free(opcert_device, void* data) { std::free(data); }
  virtual void copy(opcert_device, opcert_copy_kind, void* dst, const void* src, uint64_t bytes) {
    if (bytes != 0) std::memcpy(dst, src, bytes);
  }
  virtual void synchronize(opcert_device) {}

  const std::vector<Implementation>& implementations() const { return impls_; }

  const Implementation& implementation(const std::string& key) const {
    for (const auto& impl : impls_)
      if (impl.key == key) return impl;
    throw Error(OPCERT_ERROR_NOT_FOUND, "no implementation '" + key + "' in backend '" + info().name + "'");
  }

  /// Scratch string for query_op's reason, valid until the next query (ABI lifetime rule).
  std::string& last_reason() { return last_reason_; }
  /// Scratch string for query_op's library_call, with the same lifetime.
  std::string& last_library_call() { return last_library_call_; }

  /// The host's ABI minor version, from initialize (set before any other call reaches the
  /// backend). A host of minor >= 1 calls publish_outputs; an older one never does.
  int32_t host_abi_minor() const { return host_abi_minor_; }
  /// Called by initialize right after construction; an override reacting to it calls this one.
  virtual void set_host_abi_minor(int32_t minor) { host_abi_minor_ = minor; }

 protected:
  void add(Implementation impl) { impls_.push_back(std::move(impl)); }

 private:
  std::vector<Implementation> impls_;
  std::string last_reason_;
  std::string last_library_call_;
  int32_t host_abi_minor_ = 0;
};

}  // namespace opcert::sdk

#include <opcert/sdk/api_table.h>
