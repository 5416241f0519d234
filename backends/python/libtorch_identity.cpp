#include "libtorch_identity.h"

#include <link.h>

#include <filesystem>
#include <set>
#include <string_view>

namespace opcert::python_bridge {

std::string libtorch_conflict() {
  std::set<std::string> copies;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const std::string_view path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        const std::string_view file = path.substr(path.rfind('/') + 1);
        if (file.starts_with("libtorch_cpu.so")) {
          std::error_code ec;
          const auto canonical = std::filesystem::canonical(std::string(path), ec);
          static_cast<std::set<std::string>*>(data)->insert(ec ? std::string(path) : canonical.string());
        }
        return 0;
      },
      &copies);
  if (copies.size() < 2) return {};
  std::string list;
  for (const auto& c : copies) list += (list.empty() ? "" : " and ") + c;
  return "this process now holds two LibTorch builds (" + list +
         "): the torch this Python imports is not the LibTorch opcert is linked against; install the matching torch "
         "in this Python or rebuild opcert against this one (docs/PYTHON.md)";
}

}  // namespace opcert::python_bridge
