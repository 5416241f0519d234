// Implementations that register themselves in the file that holds them, as the harness's op
// folders do with OPCERT_REGISTER_OP: a backend with many ops gives each op one file, and no table
// of the backend lists them.
//
//   // backends/mybackend/my_registry.h: the backend's table (a tag type names it)
//   using MyImplementations = opcert::sdk::ImplementationRegistry<struct MyBackendTag>;
//
//   // backends/mybackend/ops/softmax.cpp: one op, its file
//   std::vector<opcert::sdk::Implementation> softmax_implementations() { return {...}; }
//   OPCERT_REGISTER_IMPLEMENTATIONS(MyImplementations, "softmax", softmax_implementations)
//
//   // the backend's constructor
//   for (auto& impl : MyImplementations::make_all()) add(std::move(impl));
//
// A registry may pass the backend's context to every factory (the CUDA backend's streams and
// handles): ImplementationRegistry<Tag, Context> makes factories of signature f(Context&).
//
// Registration runs at static initialisation. A file that nothing else references is dropped by
// the linker when it sits in a static archive, so the objects of an ops folder must be linked
// whole (in-tree: backends/CMakeLists.txt, opcert_backend_ops; a plugin, a shared library, keeps
// its objects anyway). This is an in-tree and SDK convenience only: the plugin ABI (docs/ABI.md)
// does not change, and a backend that calls add() itself still works.
#pragma once

#include <opcert/sdk/backend.h>

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

namespace opcert::sdk {

/// The implementations registered for the backend named by `Tag`, each family made by a factory
/// that takes the backend's `Context...` (none for a backend without one).
template <class Tag, class... Context>
class ImplementationRegistry {
 public:
  using Factory = std::vector<Implementation> (*)(Context&...);

  /// Records a factory under `family` (usually its op). Files register in an unspecified order,
  /// so make_all() sorts by family: the backend's list is the same from build to build. Returns
  /// true, so that a namespace-scope constant can hold the call (OPCERT_REGISTER_IMPLEMENTATIONS).
  static bool add(std::string_view family, Factory make) {
    entries().push_back({family, make});
    return true;
  }

  /// Every registered implementation: the families in the order of their names, each family's
  /// implementations in the order its factory gives them.
  static std::vector<Implementation> make_all(Context&... context) {
    std::vector<Entry> sorted = entries();
    std::stable_sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) { return a.family < b.family; });
    std::vector<Implementation> all;
    for (const Entry& entry : sorted)
      for (Implementation& impl : entry.make(context...)) all.push_back(std::move(impl));
    return all;
  }

 private:
  struct Entry {
    std::string_view family;
    Factory make;
  };
  // A function-local static: filled before main by registrations in any order of files.
  static std::vector<Entry>& entries() {
    static std::vector<Entry> list;
    return list;
  }
};

}  // namespace opcert::sdk

#define OPCERT_SDK_REGISTRATION_CONCAT2(a, b) a##b
#define OPCERT_SDK_REGISTRATION_CONCAT(a, b) OPCERT_SDK_REGISTRATION_CONCAT2(a, b)
/// Adds `factory`'s implementations to `registry` (an ImplementationRegistry type, spelled without
/// a comma: give it an alias) under `family` when the program (or plugin) starts. At namespace scope;
/// __COUNTER__, not __LINE__, keeps two registrations apart in one unity-build unit.
#define OPCERT_REGISTER_IMPLEMENTATIONS(registry, family, factory)                                   \
  namespace {                                                                                        \
  [[maybe_unused]] const bool OPCERT_SDK_REGISTRATION_CONCAT(opcert_implementations_registered_, __COUNTER__) = \
      registry::add(family, factory);                                                                \
  }
