#include "hosted_backend.h"

#include <stdexcept>

#include "dlpack_views.h"
#include "libtorch_identity.h"

namespace py = pybind11;

namespace opcert::python_bridge {
namespace {

constexpr size_t kMaxCachedViews = 4096;

std::string text(const py::handle& h) { return h.is_none() ? std::string() : py::str(h).cast<std::string>(); }

py::tuple int_tuple(const int64_t* values, size_t n) {
  py::tuple t(n);
  for (size_t i = 0; i < n; ++i) t[i] = py::int_(values[i]);
  return t;
}

}  // namespace

opcert_backend* load_backend(const char* name, const char* entry) {
  const py::object hosted = py::module_::import("opcert._host").attr("load")(name, entry ? py::object(py::str(entry)) : py::object(py::none()));
  if (std::string why = libtorch_conflict(); !why.empty()) throw std::runtime_error(why);
  auto b = std::make_unique<opcert_backend>();
  b->hosted = hosted;
  const py::tuple info = hosted.attr("info");
  b->name = text(info[0]);
  b->version = text(info[1]);
  b->vendor = text(info[2]);
  b->description = text(info[3]);
  b->package = text(info[4]);
  b->package_version = text(info[5]);
  b->package_sha256 = text(info[6]);
  for (const auto& d : hosted.attr("devices")) {
    const py::tuple t = py::reinterpret_borrow<py::tuple>(d);
    opcert_backend::Device device;
    device.device = {t[0].cast<int32_t>(), static_cast<int32_t>(b->devices.size())};
    device.name = text(t[1]);
    device.memory_bytes = t[2].cast<uint64_t>();
    device.compute_units = t[3].cast<int32_t>();
    b->devices.push_back(std::move(device));
  }
  for (const auto& i : hosted.attr("impls")) {
    const py::tuple t = py::reinterpret_borrow<py::tuple>(i);
    b->impls.push_back({text(t[0]), text(t[1]), text(t[2])});
  }
  return b.release();
}

py::dict tensor_views(opcert_backend& b, const opcert_tensor* tensors, int32_t count) {
  py::dict views;
  if (b.views.size() > kMaxCachedViews) b.views.clear();
  for (int32_t i = 0; i < count; ++i) {
    const opcert_tensor& t = *OPCERT_ARRAY_AT(opcert_tensor, tensors, i);
    const std::string key = view_key(t);
    auto it = b.views.find(key);
    if (it == b.views.end())
      it = b.views.emplace(key, b.hosted.attr("view")(dlpack_capsule(t), t.dtype)).first;
    views[py::str(t.name != nullptr ? t.name : "")] = it->second;
  }
  return views;
}

py::dict tensor_specs(const opcert_tensor* tensors, int32_t count) {
  py::dict specs;
  for (int32_t i = 0; i < count; ++i) {
    const opcert_tensor& t = *OPCERT_ARRAY_AT(opcert_tensor, tensors, i);
    const std::vector<int64_t> strides = strides_of(t);
    specs[py::str(t.name != nullptr ? t.name : "")] =
        py::make_tuple(t.dtype, int_tuple(t.shape, static_cast<size_t>(t.ndim)), int_tuple(strides.data(), strides.size()));
  }
  return specs;
}

py::dict attribute_values(const opcert_attr* attrs, int32_t count) {
  py::dict values;
  for (int32_t i = 0; i < count; ++i) {
    const opcert_attr& a = *OPCERT_ARRAY_AT(opcert_attr, attrs, i);
    const py::str name(a.name != nullptr ? a.name : "");
    switch (a.kind) {
      case OPCERT_ATTR_INT: values[name] = py::int_(a.i); break;
      case OPCERT_ATTR_FLOAT: values[name] = py::float_(a.f); break;
      case OPCERT_ATTR_STRING: values[name] = py::str(a.s != nullptr ? a.s : ""); break;
      case OPCERT_ATTR_INT_ARRAY: values[name] = int_tuple(a.ints, static_cast<size_t>(a.ints_count)); break;
      default: throw std::runtime_error("attribute '" + std::string(name) + "' has an unknown kind");
    }
  }
  return values;
}

}  // namespace opcert::python_bridge
