#include "run/shared_inputs.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace opcert {
namespace {

constexpr uint64_t kHostCacheDen = 8;

}  // namespace

SharedInputs::SharedInputs(const std::vector<Lane>& lanes, uint64_t host_available) {
  std::set<std::size_t> targets;
  for (const Lane& lane : lanes) targets.insert(lane.target);
  if (targets.size() < 2 || host_available == 0) return;
  const auto dir = make_input_cache_dir();
  if (!dir) return;
  // A container's /dev/shm may be far smaller than its memory (Docker's default: 64 MiB).
  std::error_code ec;
  const uint64_t room = std::filesystem::space(*dir, ec).available;
  cache_ = {*dir, std::min(host_available / kHostCacheDen, ec ? 0 : room / 2)};
}

SharedInputs::~SharedInputs() {
  if (cache_.dir.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(cache_.dir, ec);
}

void SharedInputs::expect(const CaseGroup& g) {
  const std::lock_guard lock(mutex_);
  jobs_left_[g.case_index] += g.jobs.size();
}

void SharedInputs::done(const CaseGroup& g, const Suite& suite) {
  if (cache_.dir.empty()) return;
  const std::lock_guard lock(mutex_);
  std::size_t& left = jobs_left_[g.case_index];
  left -= std::min(left, g.jobs.size());
  if (left > 0) return;
  const std::string& id = suite.cases[g.case_index].id;
  std::error_code ec;
  std::filesystem::remove(input_cache_file(cache_.dir, id), ec);
  std::filesystem::remove(reference_cache_file(cache_.dir, id), ec);
}

}  // namespace opcert
