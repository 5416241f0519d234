// One Python backend as the bridge serves it: the opcert._host.HostedBackend object and what the
// host asks of it, converted once (identity, devices, implementations), plus the call's tensors
// as torch views. Every function here needs the GIL.
#pragma once

#include <opcert/backend_abi.h>
#include <pybind11/pybind11.h>

#include <string>
#include <unordered_map>
#include <vector>

struct opcert_backend {
  struct Device {
    opcert_device device{};
    std::string name;
    uint64_t memory_bytes = 0;
    int32_t compute_units = 0;
  };
  struct Implementation {
    std::string key, op, description;
  };

  pybind11::object hosted;  // opcert._host.HostedBackend
  std::string name, version, vendor, description;
  std::string package, package_version, package_sha256;
  std::vector<Device> devices;
  std::vector<Implementation> impls;
  std::string reason;  // the latest declined query's, owned here as the ABI asks
  // torch views of the buffers calls pass, by view_key: a benchmark's calls reuse them.
  std::unordered_map<std::string, pybind11::object> views;
};

namespace opcert::python_bridge {

/// Imports backend `name` (through its entry point, or `entry` when a manifest names one) and
/// reads its identity. Throws py::error_already_set or std::runtime_error.
opcert_backend* load_backend(const char* name, const char* entry);

/// name -> torch tensor aliasing each tensor of an ABI array (zero copy, views cached).
pybind11::dict tensor_views(opcert_backend& b, const opcert_tensor* tensors, int32_t count);

/// name -> (dtype, shape, strides): a query's tensors, whose data may be NULL.
pybind11::dict tensor_specs(const opcert_tensor* tensors, int32_t count);

/// name -> int, float, str or tuple of ints.
pybind11::dict attribute_values(const opcert_attr* attrs, int32_t count);

}  // namespace opcert::python_bridge
