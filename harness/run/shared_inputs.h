// The run's shared inputs and references (session/execution/input_cache.h), where two backends (a
// backend and its peer) run the same cases side by side: a folder in /dev/shm
// (session/worker/input_cache_folder.h; its bytes are set aside from the memory gate's share:
// run/lane_memory.h). A case's files go when every lane is done with the case, the folder when the
// run ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "check/suite.h"
#include "run/case_queue.h"
#include "run/lane.h"
#include "session/worker/input_cache_folder.h"

namespace opcert {

class SharedInputs {
 public:
  /// A folder when `lanes` serve two targets or more and /dev/shm is there; else none (cache().dir
  /// empty), and the workers make their own.
  SharedInputs(const std::vector<Lane>& lanes, uint64_t host_available);
  SharedInputs(const SharedInputs&) = delete;
  SharedInputs& operator=(const SharedInputs&) = delete;

  /// The folder the workers are told of (their environment: InputCacheFolder::environment()).
  const InputCacheFolder& folder() const { return folder_; }
  /// The bytes set aside for it from the host's gate.
  uint64_t set_aside() const { return folder_.set_aside(); }

  /// Counts a queue's group: its case is done when all the groups counted for it are.
  void expect(const CaseGroup& g);
  /// A lane is done with a group: the last one done with a case removes its files.
  void done(const CaseGroup& g, const Suite& suite);

 private:
  InputCacheFolder folder_;
  std::mutex mutex_;
  std::map<std::size_t, std::size_t> jobs_left_;  // by case index
};

}  // namespace opcert
