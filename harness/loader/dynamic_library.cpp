#include "loader/dynamic_library.h"

#include <dlfcn.h>

#include <stdexcept>

namespace opcert {

std::shared_ptr<DynamicLibrary> DynamicLibrary::open(const std::string& path) {
  dlerror();
  // RTLD_LOCAL keeps one plugin's symbols from resolving another's; RTLD_NOW surfaces missing
  // dependencies here, with dlerror's text, rather than at the first call.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    throw std::runtime_error(err != nullptr ? err : "dlopen failed");
  }
  return std::shared_ptr<DynamicLibrary>(new DynamicLibrary(handle, path));
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

void* DynamicLibrary::symbol(const std::string& name) const {
  dlerror();
  return dlsym(handle_, name.c_str());
}

}  // namespace opcert
