// RAII around dlopen/dlsym/dlclose.
#pragma once

#include <memory>
#include <string>

namespace opcert {

class DynamicLibrary {
 public:
  /// dlopen(path, RTLD_NOW | RTLD_LOCAL). Throws std::runtime_error with dlerror()'s text.
  static std::shared_ptr<DynamicLibrary> open(const std::string& path);
  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  /// The symbol's address, or nullptr when the library does not export it.
  void* symbol(const std::string& name) const;
  const std::string& path() const { return path_; }

 private:
  DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_;
  std::string path_;
};

}  // namespace opcert
