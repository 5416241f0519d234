// opcert tensors as DLPack capsules that torch.utils.dlpack.from_dlpack turns into tensors
// aliasing opcert's buffers (zero copy). The capsule owns only its shape and strides.
#pragma once

#include <opcert/backend_abi.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

namespace opcert::python_bridge {

/// A "dltensor" capsule over `t` (data + byte_offset). fp8 goes as uint8 of the same shape (the
/// Python side views it as torch's float8 type, which DLPack 0.6 cannot name).
pybind11::object dlpack_capsule(const opcert_tensor& t);

/// A capsule over `bytes` raw bytes at `data` on `device`, for memory_copy.
pybind11::object byte_capsule(void* data, uint64_t bytes, const opcert_device& device);

/// Bytes that identify a view: pointer, dtype, device, shape and strides.
std::string view_key(const opcert_tensor& t);

/// The tensor's strides in elements (row-major when the tensor gives none).
std::vector<int64_t> strides_of(const opcert_tensor& t);

}  // namespace opcert::python_bridge
