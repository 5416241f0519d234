// Test plugin of ABI 1.3's libraries of several backends, written against the C ABI alone: it
// lists "family_a" and "family_b" (each initialised by name, with a package identity), one entry
// it cannot serve ("family_broken") and a note about itself (an entry with no name).
#include <opcert/backend_abi.h>

#include <cstring>
#include <new>
#include <string>

struct opcert_error {
  std::string message;
};

struct opcert_backend {
  std::string name;
  std::string key;
};

namespace {

constexpr const char* kSha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

opcert_error* fail(const std::string& message) { return new opcert_error{message}; }

void error_destroy(opcert_error_destroy_args* a) { delete a->error; }
void error_message(opcert_error_message_args* a) { a->message = a->error->message.c_str(); }
void error_code(opcert_error_code_args* a) { a->code = OPCERT_ERROR_NOT_FOUND; }

opcert_error* backend_list(opcert_backend_list_args* a) {
  static const opcert_listed_backend listed[] = {
      {sizeof(opcert_listed_backend), "family_a", "entry-a", "family entry a", nullptr},
      {sizeof(opcert_listed_backend), "family_b", nullptr, "family entry b", nullptr},
      {sizeof(opcert_listed_backend), "family_broken", nullptr, "family entry broken", "needs a device this machine lacks"},
      {sizeof(opcert_listed_backend), "", nullptr, "family library", "a note about the library"},
  };
  a->backends = listed;
  a->count = 4;
  return nullptr;
}

opcert_error* initialize(opcert_initialize_args* a) {
  if (a->struct_size < OPCERT_STRUCT_SIZE(opcert_initialize_args, backend_entry) || a->backend_name == nullptr)
    return fail("initialise one backend by name");
  const std::string name = a->backend_name;
  if (name != "family_a" && name != "family_b") return fail("no backend " + name);
  // family_a is listed with an entry and must get it back; family_b is listed without one.
  const bool entry_ok = name == "family_a" ? a->backend_entry && std::strcmp(a->backend_entry, "entry-a") == 0
                                           : a->backend_entry == nullptr;
  if (!entry_ok) return fail("wrong entry for " + name);
  a->backend = new opcert_backend{name, name + ".softmax.ref"};
  return nullptr;
}

opcert_error* finalize(opcert_finalize_args* a) {
  delete a->backend;
  return nullptr;
}

opcert_error* backend_info(opcert_backend_info_args* a) {
  a->name = a->backend->name.c_str();
  a->version = "2.0";
  a->vendor = "opcert tests";
  a->description = "one of a family";
  if (a->struct_size >= OPCERT_STRUCT_SIZE(opcert_backend_info_args, package_sha256)) {
    a->package = "family-pkg";
    a->package_version = "2.0.1";
    a->package_sha256 = kSha;
  }
  return nullptr;
}

opcert_error* device_count(opcert_device_count_args* a) {
  a->count = 1;
  return nullptr;
}

opcert_error* device_info(opcert_device_info_args* a) {
  a->device = {OPCERT_DEVICE_CPU, 0};
  a->name = "host";
  return nullptr;
}

opcert_error* impl_count(opcert_impl_count_args* a) {
  a->count = 1;
  return nullptr;
}

opcert_error* impl_info(opcert_impl_info_args* a) {
  a->key = a->backend->key.c_str();
  a->op = "softmax";
  a->description = "never run";
  return nullptr;
}

template <typename Args>
opcert_error* refuse(Args*) {
  return fail("not used by the loader tests");
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
  t.memory_allocate = refuse<opcert_memory_allocate_args>;
  t.memory_free = refuse<opcert_memory_free_args>;
  t.memory_copy = refuse<opcert_memory_copy_args>;
  t.synchronize = refuse<opcert_synchronize_args>;
  t.impl_count = impl_count;
  t.impl_info = impl_info;
  t.query_op = refuse<opcert_query_op_args>;
  t.run_op = refuse<opcert_run_op_args>;
  t.backend_list = backend_list;
  return t;
}();

}  // namespace

extern "C" OPCERT_EXPORT const opcert_api* opcert_backend_get_api(void) { return &kApi; }
