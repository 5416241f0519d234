#include "session/worker/input_cache_folder.h"
#include "util/remove_tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace opcert {
namespace {

constexpr uint64_t kHostCacheDen = 8;

}  // namespace

InputCacheFolder::InputCacheFolder(uint64_t host_available) {
  if (host_available == 0) return;
  const auto dir = make_input_cache_dir();
  if (!dir) return;
  std::error_code ec;
  const uint64_t room = std::filesystem::space(*dir, ec).available;
  cache_ = {*dir, std::min(host_available / kHostCacheDen, ec ? 0 : room / 2)};
}

InputCacheFolder::~InputCacheFolder() {
  if (!cache_.dir.empty()) remove_tree(cache_.dir);
}

std::vector<std::string> InputCacheFolder::environment() const {
  if (cache_.dir.empty()) return {};
  return {fmt::format("{}={}", kInputCacheEnvironmentVariable, cache_.dir.string()),
          fmt::format("{}={}", kInputCacheBytesEnvironmentVariable, cache_.max_bytes)};
}

void InputCacheFolder::forget(const std::string& case_id) const {
  if (cache_.dir.empty()) return;
  std::error_code ec;
  std::filesystem::remove(input_cache_file(cache_.dir, case_id), ec);
  std::filesystem::remove(reference_cache_file(cache_.dir, case_id), ec);
}

void InputCacheFolder::clear() const {
  if (!cache_.dir.empty()) clear_input_cache(cache_.dir);
}

}  // namespace opcert
