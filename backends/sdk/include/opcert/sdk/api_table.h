// Fills an opcert_api table for a subclass of opcert::sdk::Backend. Included by sdk/backend.h.
//
// Optional parts of the table are filled when the backend opts in:
//   static constexpr bool kHasEvents = true;         // and overrides the EventBackend functions
//   static constexpr bool kHasCollectives = true;    // and overrides the CommBackend functions
//   static constexpr bool kPublishesOutputs = true;  // and overrides OutputPublisher (ABI 1.1)
#pragma once

#include <opcert/sdk/backend.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

/// Definition of the ABI's opaque per-initialisation state for SDK backends.
struct opcert_backend {
  std::unique_ptr<opcert::sdk::Backend> impl;
  // Cached at initialize so the strings handed out stay valid until finalize, as the ABI promises.
  opcert::sdk::BackendInfo info;
  std::vector<opcert::sdk::DeviceInfo> devices;
};

namespace opcert::sdk {

/// Optional device timing. A backend with kHasEvents derives from this too.
class EventBackend {
 public:
  virtual ~EventBackend() = default;
  virtual opcert_event* event_create(opcert_device device) = 0;
  virtual void event_destroy(opcert_event* event) = 0;
  virtual void event_record(opcert_event* event) = 0;
  virtual double event_elapsed_ms(opcert_event* start, opcert_event* stop) = 0;
};

/// Optional collectives. A backend with kHasCollectives derives from this too.
class CommBackend {
 public:
  virtual ~CommBackend() = default;
  /// Writes up to OPCERT_COMM_UNIQUE_ID_BYTES into id and returns how many.
  virtual uint32_t comm_unique_id(uint8_t* id) = 0;
  virtual opcert_comm* comm_init(opcert_device device, int32_t rank, int32_t nranks, const uint8_t* id,
                                 uint32_t id_bytes, double timeout_seconds) = 0;
  virtual void comm_destroy(opcert_comm* comm) = 0;
  virtual void comm_abort(opcert_comm* comm) = 0;
  /// Runs a collective op on comm (run_op with a non-NULL comm lands here).
  virtual void run_collective(const OpCall& call, opcert_comm* comm) = 0;
};

/// Optional (ABI 1.1): a backend whose library returns results in memory of its own keeps them
/// pending in run_op and moves them into the call's outputs here, outside the timed region
/// (backend_abi.h, opcert_publish_outputs_args). Only when host_abi_minor() >= 1.
class OutputPublisher {
 public:
  virtual ~OutputPublisher() = default;
  /// Moves what the latest run_op of `call` left pending into its outputs; returns the bytes moved.
  virtual uint64_t publish_outputs(const OpCall& call) = 0;
};

namespace detail {

inline Backend& self(opcert_backend* b) {
  if (b == nullptr || !b->impl) throw Error(OPCERT_ERROR_INVALID_ARGUMENT, "null backend handle");
  return *b->impl;
}

/// Reads the op call honouring its struct_size: fields past it are treated as absent.
inline opcert_op_call normalized_call(const opcert_op_call* c) {
  if (c == nullptr) throw Error(OPCERT_ERROR_INVALID_ARGUMENT, "null op call");
  opcert_op_call out{};
  std::memcpy(&out, c, std::min(c->struct_size, sizeof(out)));
  out.struct_size = sizeof(out);
  return out;
}

template <class Base>
Base& as(opcert_backend* b) {
  auto* p = dynamic_cast<Base*>(&self(b));
  if (p == nullptr) throw Error(OPCERT_ERROR_UNSUPPORTED, "backend does not implement this optional part");
  return *p;
}

inline void error_destroy(opcert_error_destroy_args* a) {
  if (a->error != out_of_memory_error()) delete a->error;
}
inline void error_message(opcert_error_message_args* a) { a->message = a->error ? a->error->message.c_str() : ""; }
inline void error_code(opcert_error_code_args* a) { a->code = a->error ? a->error->code : OPCERT_ERROR_OK; }

template <class B>
opcert_error* initialize(opcert_initialize_args* a) {
  return guard([&] {
    if (a->host_abi_major != OPCERT_ABI_VERSION_MAJOR)
      throw Error(OPCERT_ERROR_VERSION_MISMATCH, "backend built for ABI major " + std::to_string(OPCERT_ABI_VERSION_MAJOR) +
                                                     ", host has " + std::to_string(a->host_abi_major));
    auto state = std::make_unique<opcert_backend>();
    state->impl = std::make_unique<B>();
    state->impl->set_host_abi_minor(a->host_abi_minor);
    state->info = state->impl->info();
    state->devices = state->impl->devices();
    a->backend = state.release();
  });
}

inline opcert_error* finalize(opcert_finalize_args* a) {
  return guard([&] { delete a->backend; });
}

inline opcert_error* backend_info(opcert_backend_info_args* a) {
  return guard([&] {
    self(a->backend);
    const BackendInfo& info = a->backend->info;
    a->name = info.name.c_str();
    a->version = info.version.c_str();
    a->vendor = info.vendor.c_str();
    a->description = info.description.c_str();
  });
}

inline opcert_error* device_count(opcert_device_count_args* a) {
  return guard([&] {
    self(a->backend);
    a->count = static_cast<int32_t>(a->backend->devices.size());
  });
}

inline opcert_error* device_info(opcert_device_info_args* a) {
  return guard([&] {
    self(a->backend);
    const auto& devs = a->backend->devices;
    if (a->index < 0 || a->index >= static_cast<int32_t>(devs.size()))
      throw Error(OPCERT_ERROR_NOT_FOUND, "device index " + std::to_string(a->index) + " out of range");
    const DeviceInfo& d = devs[a->index];
    a->device = d.device;
    a->name = d.name.c_str();
    a->memory_bytes = d.memory_bytes;
    a->compute_units = d.compute_units;
    if (a->struct_size >= OPCERT_STRUCT_SIZE(opcert_device_info_args, pci_bus_id)) {  // a host of 1.4 or later
      a->uuid = d.uuid.empty() ? nullptr : d.uuid.c_str();
      a->pci_bus_id = d.pci_bus_id.empty() ? nullptr : d.pci_bus_id.c_str();
    }
  });
}

inline opcert_error* memory_allocate(opcert_memory_allocate_args* a) {
  return guard([&] { a->data = self(a->backend).allocate(a->device, a->bytes, a->alignment); });
}
inline opcert_error* memory_free(opcert_memory_free_args* a) {
  return guard([&] {
    if (a->data != nullptr) self(a->backend).free(a->device, a->data);
  });
}
inline opcert_error* memory_copy(opcert_memory_copy_args* a) {
  return guard([&] {
    self(a->backend).copy(a->device, static_cast<opcert_copy_kind>(a->kind), a->dst, a->src, a->bytes);
  });
}
inline opcert_error* synchronize(opcert_synchronize_args* a) {
  return guard([&] { self(a->backend).synchronize(a->device); });
}

inline opcert_error* impl_count(opcert_impl_count_args* a) {
  return guard([&] { a->count = static_cast<int32_t>(self(a->backend).implementations().size()); });
}
inline opcert_error* impl_info(opcert_impl_info_args* a) {
  return guard([&] {
    const auto& impls = self(a->backend).implementations();
    if (a->index < 0 || a->index >= static_cast<int32_t>(impls.size()))
      throw Error(OPCERT_ERROR_NOT_FOUND, "implementation index " + std::to_string(a->index) + " out of range");
    a->key = impls[a->index].key.c_str();
    a->op = impls[a->index].op.c_str();
    a->description = impls[a->index].description.c_str();
  });
}

inline opcert_error* query_op(opcert_query_op_args* a) {
  return guard([&] {
    Backend& b = self(a->backend);
    const opcert_op_call call = normalized_call(a->call);
    const OpCall view(call);
    const Implementation& impl = b.implementation(std::string(view.impl_key()));
    Support s = impl.query ? impl.query(view) : Support::yes();
    b.last_reason() = std::move(s.reason);
    a->supported = s.supported ? 1 : 0;
    a->reason = s.supported ? nullptr : b.last_reason().c_str();
    if (a->struct_size >= OPCERT_STRUCT_SIZE(opcert_query_op_args, library_call)) {
      b.last_library_call() = s.supported && impl.library_call ? impl.library_call(view) : std::string();
      a->library_call = b.last_library_call().empty() ? nullptr : b.last_library_call().c_str();
    }
  });
}

inline opcert_error* run_op(opcert_run_op_args* a) {
  return guard([&] {
    Backend& b = self(a->backend);
    const opcert_op_call call = normalized_call(a->call);
    const OpCall view(call);
    opcert_comm* comm = a->struct_size >= OPCERT_STRUCT_SIZE(opcert_run_op_args, comm) ? a->comm : nullptr;
    if (comm != nullptr) {
      as<CommBackend>(a->backend).run_collective(view, comm);
      return;
    }
    const Implementation& impl = b.implementation(std::string(view.impl_key()));
    if (impl.query) {
      Support s = impl.query(view);
      if (!s.supported) throw Error(OPCERT_ERROR_UNSUPPORTED, s.reason);
    }
    impl.run(view);
  });
}

inline opcert_error* publish_outputs(opcert_publish_outputs_args* a) {
  return guard([&] {
    const opcert_op_call call = normalized_call(a->call);
    a->bytes = as<OutputPublisher>(a->backend).publish_outputs(OpCall(call));
  });
}

inline opcert_error* event_create(opcert_event_create_args* a) {
  return guard([&] { a->event = as<EventBackend>(a->backend).event_create(a->device); });
}
inline opcert_error* event_destroy(opcert_event_destroy_args* a) {
  return guard([&] {
    if (a->event != nullptr) as<EventBackend>(a->backend).event_destroy(a->event);
  });
}
inline opcert_error* event_record(opcert_event_record_args* a) {
  return guard([&] { as<EventBackend>(a->backend).event_record(a->event); });
}
inline opcert_error* event_elapsed(opcert_event_elapsed_args* a) {
  return guard([&] { a->milliseconds = as<EventBackend>(a->backend).event_elapsed_ms(a->start, a->stop); });
}

inline opcert_error* comm_unique_id(opcert_comm_unique_id_args* a) {
  return guard([&] { a->id_bytes = as<CommBackend>(a->backend).comm_unique_id(a->id); });
}
inline opcert_error* comm_init(opcert_comm_init_args* a) {
  return guard([&] {
    a->comm = as<CommBackend>(a->backend).comm_init(a->device, a->rank, a->nranks, a->id, a->id_bytes, a->timeout_seconds);
  });
}
inline opcert_error* comm_destroy(opcert_comm_destroy_args* a) {
  return guard([&] {
    if (a->comm != nullptr) as<CommBackend>(a->backend).comm_destroy(a->comm);
  });
}
inline opcert_error* comm_abort(opcert_comm_abort_args* a) {
  return guard([&] { as<CommBackend>(a->backend).comm_abort(a->comm); });
}

}  // namespace detail

/// The filled table for backend class B, with static lifetime.
template <class B>
const opcert_api* make_api() {
  static const opcert_api table = [] {
    opcert_api t{};
    t.struct_size = sizeof(opcert_api);
    t.abi_major = OPCERT_ABI_VERSION_MAJOR;
    t.abi_minor = OPCERT_ABI_VERSION_MINOR;
    t.error_destroy = detail::error_destroy;
    t.error_message = detail::error_message;
    t.error_code = detail::error_code;
    t.initialize = detail::initialize<B>;
    t.finalize = detail::finalize;
    t.backend_info = detail::backend_info;
    t.device_count = detail::device_count;
    t.device_info = detail::device_info;
    t.memory_allocate = detail::memory_allocate;
    t.memory_free = detail::memory_free;
    t.memory_copy = detail::memory_copy;
    t.synchronize = detail::synchronize;
    t.impl_count = detail::impl_count;
    t.impl_info = detail::impl_info;
    t.query_op = detail::query_op;
    t.run_op = detail::run_op;
    if constexpr (requires { requires B::kHasEvents; }) {
      t.event_create = detail::event_create;
      t.event_destroy = detail::event_destroy;
      t.event_record = detail::event_record;
      t.event_elapsed = detail::event_elapsed;
    }
    if constexpr (requires { requires B::kHasCollectives; }) {
      t.comm_unique_id = detail::comm_unique_id;
      t.comm_init = detail::comm_init;
      t.comm_destroy = detail::comm_destroy;
      t.comm_abort = detail::comm_abort;
    }
    if constexpr (requires { requires B::kPublishesOutputs; }) t.publish_outputs = detail::publish_outputs;
    return t;
  }();
  return &table;
}

}  // namespace opcert::sdk

/// Defines the exported entry point of a plugin library for backend class B.
#define OPCERT_SDK_EXPORT_PLUGIN(B) \
  extern "C" OPCERT_EXPORT const opcert_api* opcert_backend_get_api(void) { return ::opcert::sdk::make_api<B>(); }

/// Defines a named entry point for an in-tree backend linked into the opcert binary.
#define OPCERT_SDK_DEFINE_BUILTIN(fn_name, B) \
  extern "C" const opcert_api* fn_name(void) { return ::opcert::sdk::make_api<B>(); }
