// The Python bridge's function table: one library serving every Python backend installed in the
// opcert.backends entry-point group, each initialised by name (ABI 1.3 backend_list). Every call
// takes the GIL; the work is done by opcert._host (python/opcert/_host.py).
#include <opcert/backend_abi.h>
#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "bridge_error.h"
#include "dlpack_views.h"
#include "embedded_python.h"
#include "hosted_backend.h"

namespace py = pybind11;
using namespace opcert::python_bridge;

// An event: torch.cuda.Event for a backend on CUDA; the host clock for one on the CPU, where
// run_op has finished when it returns.
struct opcert_event {
  py::object cuda;
  std::chrono::steady_clock::time_point host;
};

namespace {

constexpr uint64_t kDefaultAlignment = 64;

// Whether the caller's argument struct reaches `field` (older hosts pass shorter ones).
#define BRIDGE_HAS(args, type, field) ((args)->struct_size >= OPCERT_STRUCT_SIZE(type, field))

opcert_error* not_started() {
  return make_error(OPCERT_ERROR_DEVICE, interpreter().error);
}

bool on_cuda(const opcert_device& d) { return d.type == OPCERT_DEVICE_CUDA; }

// Item `index` of a list the host walks by index, or nullptr past its ends.
template <typename T>
const T* element(const std::vector<T>& items, int32_t index) {
  return index >= 0 && static_cast<size_t>(index) < items.size() ? &items[static_cast<size_t>(index)] : nullptr;
}

// --- errors -------------------------------------------------------------------------------------
void error_destroy(opcert_error_destroy_args* a) { delete a->error; }
void error_message(opcert_error_message_args* a) { a->message = a->error->message.c_str(); }
void error_code(opcert_error_code_args* a) { a->code = a->error->code; }

// --- listing and lifetime -----------------------------------------------------------------------
struct Listing {
  std::vector<std::string> strings;  // name, entry, origin, error per backend
  std::vector<opcert_listed_backend> entries;
};

opcert_error* backend_list(opcert_backend_list_args* a) {
  static std::mutex mutex;
  static Listing listing;
  if (!interpreter().started) return not_started();
  std::lock_guard lock(mutex);
  listing = {};
  py::gil_scoped_acquire gil;  // held through the catch too: reading the exception needs it
  try {
    for (const auto& item : py::module_::import("opcert._host").attr("list_backends")()) {
      const py::tuple t = py::reinterpret_borrow<py::tuple>(item);
      for (int i = 0; i < 4; ++i) listing.strings.push_back(t[i].is_none() ? "" : py::str(t[i]).cast<std::string>());
    }
  } catch (...) {
    return current_exception_error("listing the opcert.backends entry points failed");
  }
  for (const auto& note : interpreter().notes)
    listing.strings.insert(listing.strings.end(), {"", "", "python bridge", note});
  for (size_t i = 0; i < listing.strings.size(); i += 4) {
    const auto* s = &listing.strings[i];
    listing.entries.push_back({sizeof(opcert_listed_backend), s[0].c_str(), s[1].empty() ? nullptr : s[1].c_str(),
                               s[2].c_str(), s[3].empty() ? nullptr : s[3].c_str()});
  }
  a->backends = listing.entries.empty() ? nullptr : listing.entries.data();
  a->count = static_cast<int32_t>(listing.entries.size());
  return nullptr;
}

opcert_error* initialize(opcert_initialize_args* a) {
  const char* name = BRIDGE_HAS(a, opcert_initialize_args, backend_name) ? a->backend_name : nullptr;
  const char* entry = BRIDGE_HAS(a, opcert_initialize_args, backend_entry) ? a->backend_entry : nullptr;
  if (name == nullptr)
    return make_error(OPCERT_ERROR_VERSION_MISMATCH,
                      "the Python bridge serves several backends, each initialised by name: it needs a host of ABI 1.3");
  if (!interpreter().started) return not_started();
  py::gil_scoped_acquire gil;
  try {
    a->backend = load_backend(name, entry);
  } catch (...) {
    return current_exception_error("importing the Python backend failed");
  }
  return nullptr;
}

opcert_error* finalize(opcert_finalize_args* a) {
  py::gil_scoped_acquire gil;
  delete a->backend;
  return nullptr;
}

opcert_error* backend_info(opcert_backend_info_args* a) {
  const opcert_backend& b = *a->backend;
  a->name = b.name.c_str();
  a->version = b.version.c_str();
  a->vendor = b.vendor.c_str();
  a->description = b.description.c_str();
  if (BRIDGE_HAS(a, opcert_backend_info_args, package_sha256) && !b.package.empty()) {
    a->package = b.package.c_str();
    a->package_version = b.package_version.c_str();
    a->package_sha256 = b.package_sha256.c_str();
  }
  return nullptr;
}

// --- devices and memory -------------------------------------------------------------------------
opcert_error* device_count(opcert_device_count_args* a) {
  a->count = static_cast<int32_t>(a->backend->devices.size());
  return nullptr;
}

opcert_error* device_info(opcert_device_info_args* a) {
  const auto* d = element(a->backend->devices, a->index);
  if (d == nullptr) return make_error(OPCERT_ERROR_NOT_FOUND, "no device " + std::to_string(a->index));
  a->device = d->device;
  a->name = d->name.c_str();
  a->memory_bytes = d->memory_bytes;
  a->compute_units = d->compute_units;
  return nullptr;
}

opcert_error* memory_allocate(opcert_memory_allocate_args* a) {
  if (!on_cuda(a->device)) {
    const uint64_t alignment = a->alignment > kDefaultAlignment ? a->alignment : kDefaultAlignment;
    const uint64_t bytes = (std::max<uint64_t>(a->bytes, 1) + alignment - 1) / alignment * alignment;
    a->data = std::aligned_alloc(alignment, bytes);
    return a->data != nullptr ? nullptr : make_error(OPCERT_ERROR_OUT_OF_MEMORY, "out of host memory");
  }
  py::gil_scoped_acquire gil;
  try {
    const auto data = a->backend->hosted.attr("allocate")(a->device.index, a->bytes).cast<uintptr_t>();
    // torch's caching allocator aligns blocks to 512 bytes; a wider request is refused, not ignored.
    if (a->alignment != 0 && data % a->alignment != 0) {
      a->backend->hosted.attr("free")(data);
      return make_error(OPCERT_ERROR_INVALID_ARGUMENT, "torch allocation: alignment " + std::to_string(a->alignment) +
                                                           " is more than torch's blocks give");
    }
    a->data = reinterpret_cast<void*>(data);
  } catch (...) {
    return current_exception_error("torch allocation");
  }
  return nullptr;
}

opcert_error* memory_free(opcert_memory_free_args* a) {
  if (!on_cuda(a->device)) {
    std::free(a->data);
    return nullptr;
  }
  py::gil_scoped_acquire gil;
  try {
    a->backend->views.clear();  // no view may outlive the block it aliases
    a->backend->hosted.attr("free")(reinterpret_cast<uintptr_t>(a->data));
  } catch (...) {
    return current_exception_error("torch release");
  }
  return nullptr;
}

opcert_error* memory_copy(opcert_memory_copy_args* a) {
  if (!on_cuda(a->device)) {
    std::memcpy(a->dst, a->src, a->bytes);
    return nullptr;
  }
  const opcert_device host{OPCERT_DEVICE_CPU, 0};
  const opcert_device& dst_device = a->kind == OPCERT_COPY_DEVICE_TO_HOST ? host : a->device;
  const opcert_device& src_device = a->kind == OPCERT_COPY_HOST_TO_DEVICE ? host : a->device;
  py::gil_scoped_acquire gil;
  try {
    const py::object& hosted = a->backend->hosted;
    constexpr int kBytes = OPCERT_DTYPE_I8;  // a C enum does not convert to Python; its value does
    const py::object dst = hosted.attr("view")(byte_capsule(a->dst, a->bytes, dst_device), kBytes);
    const py::object src = hosted.attr("view")(byte_capsule(const_cast<void*>(a->src), a->bytes, src_device), kBytes);
    hosted.attr("copy")(dst, src, a->device.index);
  } catch (...) {
    return current_exception_error("torch copy");
  }
  return nullptr;
}

opcert_error* synchronize(opcert_synchronize_args* a) {
  if (!on_cuda(a->device)) return nullptr;
  py::gil_scoped_acquire gil;
  try {
    a->backend->hosted.attr("synchronize")(a->device.index);
  } catch (...) {
    return current_exception_error("torch.cuda.synchronize");
  }
  return nullptr;
}

// --- implementations and calls ------------------------------------------------------------------
opcert_error* impl_count(opcert_impl_count_args* a) {
  a->count = static_cast<int32_t>(a->backend->impls.size());
  return nullptr;
}

opcert_error* impl_info(opcert_impl_info_args* a) {
  const auto* i = element(a->backend->impls, a->index);
  if (i == nullptr) return make_error(OPCERT_ERROR_NOT_FOUND, "no implementation " + std::to_string(a->index));
  a->key = i->key.c_str();
  a->op = i->op.c_str();
  a->description = i->description.c_str();
  return nullptr;
}

bool known_impl(const opcert_backend& b, const char* key) {
  for (const auto& i : b.impls)
    if (key != nullptr && i.key == key) return true;
  return false;
}

opcert_error* query_op(opcert_query_op_args* a) {
  opcert_backend& b = *a->backend;
  const opcert_op_call& c = *a->call;
  if (!known_impl(b, c.impl_key))
    return make_error(OPCERT_ERROR_NOT_FOUND, std::string("unknown implementation ") + (c.impl_key ? c.impl_key : ""));
  py::gil_scoped_acquire gil;
  try {
    const py::object reason = b.hosted.attr("query")(c.impl_key, tensor_specs(c.inputs, c.input_count),
                                                     tensor_specs(c.outputs, c.output_count),
                                                     attribute_values(c.attrs, c.attr_count));
    a->supported = reason.is_none() ? 1 : 0;
    b.reason = reason.is_none() ? std::string() : py::str(reason).cast<std::string>();
    a->reason = a->supported ? nullptr : b.reason.c_str();
  } catch (...) {
    return current_exception_error(c.impl_key);
  }
  return nullptr;
}

opcert_error* run_op(opcert_run_op_args* a) {
  opcert_backend& b = *a->backend;
  const opcert_op_call& c = *a->call;
  if (!known_impl(b, c.impl_key))
    return make_error(OPCERT_ERROR_NOT_FOUND, std::string("unknown implementation ") + (c.impl_key ? c.impl_key : ""));
  py::gil_scoped_acquire gil;
  try {
    b.hosted.attr("run")(c.impl_key, tensor_views(b, c.inputs, c.input_count), tensor_views(b, c.outputs, c.output_count),
                         attribute_values(c.attrs, c.attr_count));
  } catch (...) {
    return current_exception_error(c.impl_key);
  }
  return nullptr;
}

opcert_error* publish_outputs(opcert_publish_outputs_args* a) {
  py::gil_scoped_acquire gil;
  try {
    a->bytes = a->backend->hosted.attr("publish")().cast<uint64_t>();
  } catch (...) {
    return current_exception_error("moving returned results");
  }
  return nullptr;
}

// --- events -------------------------------------------------------------------------------------
opcert_error* event_create(opcert_event_create_args* a) {
  auto event = std::make_unique<opcert_event>();
  if (on_cuda(a->device)) {
    py::gil_scoped_acquire gil;
    try {
      event->cuda = a->backend->hosted.attr("event")(a->device.index);
    } catch (...) {
      return current_exception_error("torch.cuda.Event");
    }
  }
  a->event = event.release();
  return nullptr;
}

opcert_error* event_destroy(opcert_event_destroy_args* a) {
  if (a->event == nullptr) return nullptr;
  py::gil_scoped_acquire gil;
  delete a->event;
  return nullptr;
}

opcert_error* event_record(opcert_event_record_args* a) {
  if (!a->event->cuda) {
    a->event->host = std::chrono::steady_clock::now();
    return nullptr;
  }
  py::gil_scoped_acquire gil;
  try {
    a->backend->hosted.attr("record")(a->event->cuda);
  } catch (...) {
    return current_exception_error("torch.cuda.Event.record");
  }
  return nullptr;
}

opcert_error* event_elapsed(opcert_event_elapsed_args* a) {
  if (!a->start->cuda != !a->stop->cuda)
    return make_error(OPCERT_ERROR_INVALID_ARGUMENT, "event_elapsed: one event is on the GPU, the other on the host");
  if (!a->start->cuda) {
    a->milliseconds = std::chrono::duration<double, std::milli>(a->stop->host - a->start->host).count();
    return nullptr;
  }
  py::gil_scoped_acquire gil;
  try {
    a->milliseconds = a->backend->hosted.attr("elapsed_ms")(a->start->cuda, a->stop->cuda).cast<double>();
  } catch (...) {
    return current_exception_error("torch.cuda.Event.elapsed_time");
  }
  return nullptr;
}

const opcert_api kApi = [] {
  opcert_api t{};
  t.struct_size = sizeof(opcert_api);
  t.abi_major = OPCERT_ABI_VERSION_MAJOR;
  t.abi_minor = OPCERT_ABI_VERSION_MINOR;
  t.error_destroy = error_destroy;
  t.error_message = error_message;
  t.error_code = error_code;
  t.initialize = initialize;
  t.finalize = finalize;
  t.backend_info = backend_info;
  t.device_count = device_count;
  t.device_info = device_info;
  t.memory_allocate = memory_allocate;
  t.memory_free = memory_free;
  t.memory_copy = memory_copy;
  t.synchronize = synchronize;
  t.impl_count = impl_count;
  t.impl_info = impl_info;
  t.query_op = query_op;
  t.run_op = run_op;
  t.event_create = event_create;
  t.event_destroy = event_destroy;
  t.event_record = event_record;
  t.event_elapsed = event_elapsed;
  t.publish_outputs = publish_outputs;
  t.backend_list = backend_list;
  return t;
}();

}  // namespace

extern "C" OPCERT_EXPORT const opcert_api* opcert_backend_get_api(void) { return &kApi; }
