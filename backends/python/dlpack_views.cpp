#include "dlpack_views.h"

#if __has_include(<dlpack/dlpack.h>)
#include <dlpack/dlpack.h>
#else
#include <ATen/dlpack.h>  // a pip torch's copy of the same header, where Debian's is absent
#endif

#include <cstring>
#include <vector>

namespace py = pybind11;

namespace opcert::python_bridge {
namespace {

struct OwnedView {
  DLManagedTensor managed{};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

void delete_view(DLManagedTensor* self) { delete static_cast<OwnedView*>(self->manager_ctx); }

// Called when the capsule dies: torch renames a consumed capsule "used_dltensor" and owns it then.
void capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
  }
}

DLDataType dl_dtype(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: return {kDLFloat, 64, 1};
    case OPCERT_DTYPE_F32: return {kDLFloat, 32, 1};
    case OPCERT_DTYPE_F16: return {kDLFloat, 16, 1};
    case OPCERT_DTYPE_BF16: return {kDLBfloat, 16, 1};
    case OPCERT_DTYPE_I8: return {kDLInt, 8, 1};
    case OPCERT_DTYPE_I32: return {kDLInt, 32, 1};
    default: return {kDLUInt, 8, 1};  // fp8: bytes, viewed on the Python side
  }
}

DLDevice dl_device(const opcert_device& d) {
  return {d.type == OPCERT_DEVICE_CUDA ? kDLCUDA : kDLCPU, d.index};
}

py::object capsule_of(OwnedView* view, void* data, const opcert_device& device, DLDataType dtype) {
  DLTensor& t = view->managed.dl_tensor;
  t.data = data;
  t.device = dl_device(device);
  t.ndim = static_cast<int32_t>(view->shape.size());
  t.dtype = dtype;
  t.shape = view->shape.data();
  t.strides = view->strides.data();
  t.byte_offset = 0;
  view->managed.manager_ctx = view;
  view->managed.deleter = delete_view;
  PyObject* capsule = PyCapsule_New(&view->managed, "dltensor", capsule_destructor);
  if (capsule == nullptr) {
    delete view;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(capsule);
}

}  // namespace

std::vector<int64_t> strides_of(const opcert_tensor& t) {
  std::vector<int64_t> strides(static_cast<size_t>(t.ndim));
  if (t.strides != nullptr) {
    std::memcpy(strides.data(), t.strides, strides.size() * sizeof(int64_t));
    return strides;
  }
  int64_t step = 1;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    strides[static_cast<size_t>(i)] = step;
    step *= t.shape[i];
  }
  return strides;
}

py::object dlpack_capsule(const opcert_tensor& t) {
  auto* view = new OwnedView;
  view->shape.assign(t.shape, t.shape + t.ndim);
  view->strides = strides_of(t);
  return capsule_of(view, static_cast<char*>(t.data) + t.byte_offset, t.device, dl_dtype(t.dtype));
}

py::object byte_capsule(void* data, uint64_t bytes, const opcert_device& device) {
  auto* view = new OwnedView;
  view->shape = {static_cast<int64_t>(bytes)};
  view->strides = {1};
  return capsule_of(view, data, device, {kDLUInt, 8, 1});
}

std::string view_key(const opcert_tensor& t) {
  std::string key;
  auto put = [&key](const void* p, size_t n) { key.append(static_cast<const char*>(p), n); };
  const void* data = static_cast<const char*>(t.data) + t.byte_offset;
  put(&data, sizeof data);
  put(&t.dtype, sizeof t.dtype);
  put(&t.device, sizeof t.device);
  put(t.shape, sizeof(int64_t) * static_cast<size_t>(t.ndim));
  const std::vector<int64_t> strides = strides_of(t);
  put(strides.data(), sizeof(int64_t) * strides.size());
  return key;
}

}  // namespace opcert::python_bridge
