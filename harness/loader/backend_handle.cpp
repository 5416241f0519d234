#include "loader/backend_handle.h"

#include <fmt/format.h>

#include <algorithm>

#include "loader/abi_layout.h"

namespace opcert {
namespace {

// Every entry a 1.0 table must fill; checked within the table's own struct_size.
bool has_required_entries(const opcert_api* api) {
  return OPCERT_API_HAS(api, opcert_api, error_destroy) && OPCERT_API_HAS(api, opcert_api, error_message) &&
         OPCERT_API_HAS(api, opcert_api, error_code) && OPCERT_API_HAS(api, opcert_api, initialize) &&
         OPCERT_API_HAS(api, opcert_api, finalize) && OPCERT_API_HAS(api, opcert_api, backend_info) &&
         OPCERT_API_HAS(api, opcert_api, device_count) && OPCERT_API_HAS(api, opcert_api, device_info) &&
         OPCERT_API_HAS(api, opcert_api, memory_allocate) && OPCERT_API_HAS(api, opcert_api, memory_free) &&
         OPCERT_API_HAS(api, opcert_api, memory_copy) && OPCERT_API_HAS(api, opcert_api, synchronize) &&
         OPCERT_API_HAS(api, opcert_api, impl_count) && OPCERT_API_HAS(api, opcert_api, impl_info) &&
         OPCERT_API_HAS(api, opcert_api, query_op) && OPCERT_API_HAS(api, opcert_api, run_op);
}

std::string text(const char* s) { return s != nullptr ? s : ""; }

}  // namespace

std::optional<std::string> abi_incompatibility(const opcert_api* api) {
  if (api == nullptr) return "the entry point returned a null function table";
  if (api->struct_size < OPCERT_STRUCT_SIZE(opcert_api, abi_minor))
    return fmt::format("function table too small to carry a version (struct_size {})", api->struct_size);
  if (api->abi_major != OPCERT_ABI_VERSION_MAJOR)
    return fmt::format(
        "ABI major version mismatch: backend built for ABI {}.{}, this opcert speaks ABI {}.{}; "
        "rebuild the backend against opcert's backend_abi.h {}.x",
        api->abi_major, api->abi_minor, OPCERT_ABI_VERSION_MAJOR, OPCERT_ABI_VERSION_MINOR, OPCERT_ABI_VERSION_MAJOR);
  if (!has_required_entries(api))
    return fmt::format("function table of ABI {}.{} (struct_size {}) lacks a required 1.0 entry", api->abi_major,
                       api->abi_minor, api->struct_size);
  return std::nullopt;
}

void BackendHandle::check(opcert_error* error, const char* what) const {
  if (error == nullptr) return;
  opcert_error_message_args msg{sizeof(msg), error, nullptr};
  api_->error_message(&msg);
  opcert_error_code_args code{sizeof(code), error, OPCERT_ERROR_UNKNOWN};
  api_->error_code(&code);
  std::string message = text(msg.message);
  opcert_error_destroy_args destroy{sizeof(destroy), error};
  api_->error_destroy(&destroy);
  throw BackendError(static_cast<opcert_error_code>(code.code), fmt::format("{}: {}", what, message));
}

std::unique_ptr<BackendHandle> BackendHandle::open(const opcert_api* api, BackendSource source) {
  if (auto why = abi_incompatibility(api)) throw BackendError(OPCERT_ERROR_VERSION_MISMATCH, *why);

  std::unique_ptr<BackendHandle> h(new BackendHandle(api, std::move(source)));
  const BackendSource& src = h->source_;
  opcert_initialize_args init{sizeof(init), OPCERT_ABI_VERSION_MAJOR, OPCERT_ABI_VERSION_MINOR, nullptr,
                              src.backend_name.empty() ? nullptr : src.backend_name.c_str(),
                              src.entry.empty() ? nullptr : src.entry.c_str()};
  h->check(api->initialize(&init), "initialize failed");
  if (init.backend == nullptr) throw BackendError(OPCERT_ERROR_INTERNAL, "initialize returned no backend state");
  h->backend_ = init.backend;

  opcert_backend_info_args info{};
  info.struct_size = sizeof(info);
  info.backend = h->backend_;
  h->check(api->backend_info(&info), "backend_info failed");
  h->name_ = text(info.name);
  h->version_ = text(info.version);
  h->vendor_ = text(info.vendor);
  h->description_ = text(info.description);
  h->package_ = {text(info.package), text(info.package_version), text(info.package_sha256)};
  if (h->name_.empty()) throw BackendError(OPCERT_ERROR_INVALID_ARGUMENT, "backend_info returned an empty name");

  opcert_device_count_args count{sizeof(count), h->backend_, 0};
  h->check(api->device_count(&count), "device_count failed");
  for (int32_t i = 0; i < count.count; ++i) {
    opcert_device_info_args d{};
    d.struct_size = sizeof(d);
    d.backend = h->backend_;
    d.index = i;
    h->check(api->device_info(&d), "device_info failed");
    // d starts zeroed: a backend before 1.4 leaves uuid and pci_bus_id NULL, read as unknown.
    h->devices_.push_back({d.device, text(d.name), d.memory_bytes, d.compute_units, text(d.uuid), text(d.pci_bus_id)});
  }

  opcert_impl_count_args impls{sizeof(impls), h->backend_, 0};
  h->check(api->impl_count(&impls), "impl_count failed");
  const std::string prefix = h->name_ + ".";
  for (int32_t i = 0; i < impls.count; ++i) {
    opcert_impl_info_args ii{sizeof(ii), h->backend_, i, nullptr, nullptr, nullptr};
    h->check(api->impl_info(&ii), "impl_info failed");
    ImplementationInfo impl{text(ii.key), text(ii.op), text(ii.description)};
    if (impl.key.rfind(prefix, 0) != 0)
      throw BackendError(OPCERT_ERROR_INVALID_ARGUMENT,
                         fmt::format("implementation key '{}' must start with '{}'", impl.key, prefix));
    h->impls_.push_back(std::move(impl));
  }
  return h;
}

bool BackendHandle::lists_backends(const opcert_api* api) { return OPCERT_API_HAS(api, opcert_api, backend_list); }

std::vector<ListedBackend> BackendHandle::list_backends(const opcert_api* api) {
  opcert_backend_list_args list{sizeof(list), nullptr, 0};
  if (opcert_error* error = api->backend_list(&list)) {
    BackendHandle reader(api, {});  // only to read and release the error
    reader.check(error, "listing its backends failed");
  }
  std::vector<ListedBackend> out;
  for (int32_t i = 0; i < list.count; ++i) {
    const opcert_listed_backend& b = *OPCERT_ARRAY_AT(opcert_listed_backend, list.backends, i);
    out.push_back({text(b.name), text(b.entry), text(b.origin), text(b.error)});
  }
  return out;
}

BackendHandle::~BackendHandle() {
  if (backend_ == nullptr) return;
  opcert_finalize_args fin{sizeof(fin), backend_};
  if (opcert_error* err = api_->finalize(&fin)) {
    opcert_error_destroy_args destroy{sizeof(destroy), err};
    api_->error_destroy(&destroy);  // nothing useful to do with a failed finalize at teardown
  }
}

bool BackendHandle::has_events() const {
  return OPCERT_API_HAS(api_, opcert_api, event_create) && OPCERT_API_HAS(api_, opcert_api, event_destroy) &&
         OPCERT_API_HAS(api_, opcert_api, event_record) && OPCERT_API_HAS(api_, opcert_api, event_elapsed);
}

bool BackendHandle::has_collectives() const {
  return OPCERT_API_HAS(api_, opcert_api, comm_unique_id) && OPCERT_API_HAS(api_, opcert_api, comm_init) &&
         OPCERT_API_HAS(api_, opcert_api, comm_destroy) && OPCERT_API_HAS(api_, opcert_api, comm_abort);
}

void* BackendHandle::allocate(opcert_device device, uint64_t bytes, uint64_t alignment) {
  opcert_memory_allocate_args a{sizeof(a), backend_, device, bytes, alignment, nullptr};
  check(api_->memory_allocate(&a), "memory_allocate failed");
  return a.data;
}

void BackendHandle::free(opcert_device device, void* data) {
  opcert_memory_free_args a{sizeof(a), backend_, device, data};
  check(api_->memory_free(&a), "memory_free failed");
}

void BackendHandle::copy(opcert_device device, opcert_copy_kind kind, void* dst, const void* src, uint64_t bytes) {
  opcert_memory_copy_args a{sizeof(a), backend_, device, kind, dst, src, bytes};
  check(api_->memory_copy(&a), "memory_copy failed");
}

void BackendHandle::synchronize(opcert_device device) {
  opcert_synchronize_args a{sizeof(a), backend_, device};
  check(api_->synchronize(&a), "synchronize failed");
}

SupportAnswer BackendHandle::query(const opcert_op_call& call) {
  const CallLayout laid_out(call, api_->abi_minor);
  opcert_query_op_args a{sizeof(a), backend_, &laid_out.call(), 0, nullptr, nullptr};
  check(api_->query_op(&a), "query_op failed");
  if (a.supported == 0) return {false, text(a.reason), {}};
  return {true, {}, text(a.library_call)};
}

void BackendHandle::run(const opcert_op_call& call, opcert_comm* comm) {
  const CallLayout laid_out(call, api_->abi_minor);  // no copy unless the backend's minor needs one
  opcert_run_op_args a{sizeof(a), backend_, &laid_out.call(), comm};
  check(api_->run_op(&a), "run_op failed");
}

uint64_t BackendHandle::publish_outputs(const opcert_op_call& call) {
  if (!OPCERT_API_HAS(api_, opcert_api, publish_outputs)) return 0;
  const CallLayout laid_out(call, api_->abi_minor);
  opcert_publish_outputs_args a{sizeof(a), backend_, &laid_out.call(), 0};
  check(api_->publish_outputs(&a), "publish_outputs failed");
  return a.bytes;
}

opcert_event* BackendHandle::create_event(opcert_device device) {
  opcert_event_create_args a{sizeof(a), backend_, device, nullptr};
  check(api_->event_create(&a), "event_create failed");
  return a.event;
}

void BackendHandle::destroy_event(opcert_event* event) noexcept {
  opcert_event_destroy_args a{sizeof(a), backend_, event};
  if (opcert_error* err = api_->event_destroy(&a)) {
    opcert_error_destroy_args destroy{sizeof(destroy), err};
    api_->error_destroy(&destroy);  // a destructor path: nothing useful to do with the error
  }
}

void BackendHandle::record_event(opcert_event* event) {
  opcert_event_record_args a{sizeof(a), backend_, event};
  check(api_->event_record(&a), "event_record failed");
}

std::vector<uint8_t> BackendHandle::comm_unique_id() {
  opcert_comm_unique_id_args a{};
  a.struct_size = sizeof(a);
  a.backend = backend_;
  check(api_->comm_unique_id(&a), "comm_unique_id failed");
  if (a.id_bytes > OPCERT_COMM_UNIQUE_ID_BYTES)
    throw BackendError(OPCERT_ERROR_INTERNAL, fmt::format("comm_unique_id reported {} bytes, more than the {} the ABI allows",
                                                          a.id_bytes, OPCERT_COMM_UNIQUE_ID_BYTES));
  return {a.id, a.id + a.id_bytes};
}

opcert_comm* BackendHandle::comm_init(opcert_device device, int32_t rank, int32_t nranks, const std::vector<uint8_t>& id,
                                      double timeout_seconds) {
  opcert_comm_init_args a{};
  a.struct_size = sizeof(a);
  a.backend = backend_;
  a.device = device;
  a.rank = rank;
  a.nranks = nranks;
  std::copy_n(id.begin(), std::min<std::size_t>(id.size(), OPCERT_COMM_UNIQUE_ID_BYTES), a.id);
  a.id_bytes = static_cast<uint32_t>(std::min<std::size_t>(id.size(), OPCERT_COMM_UNIQUE_ID_BYTES));
  a.timeout_seconds = timeout_seconds;
  check(api_->comm_init(&a), "comm_init failed");
  if (a.comm == nullptr) throw BackendError(OPCERT_ERROR_INTERNAL, "comm_init returned no communicator");
  return a.comm;
}

void BackendHandle::comm_destroy(opcert_comm* comm) noexcept {
  opcert_comm_destroy_args a{sizeof(a), backend_, comm};
  if (opcert_error* err = api_->comm_destroy(&a)) {
    opcert_error_destroy_args destroy{sizeof(destroy), err};
    api_->error_destroy(&destroy);  // a release path: the communicator is gone either way
  }
}

void BackendHandle::comm_abort(opcert_comm* comm) {
  opcert_comm_abort_args a{sizeof(a), backend_, comm};
  check(api_->comm_abort(&a), "comm_abort failed");
}

double BackendHandle::elapsed_ms(opcert_event* start, opcert_event* stop) {
  opcert_event_elapsed_args a{sizeof(a), backend_, start, stop, 0.0};
  check(api_->event_elapsed(&a), "event_elapsed failed");
  return a.milliseconds;
}

}  // namespace opcert
