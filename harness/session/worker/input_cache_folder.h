// The runner's side of the shared inputs (session/execution/input_cache.h): the private folder in
// /dev/shm that the workers of one run, or of one bench lane, share big cases' inputs and fp64
// references through. It holds at most an eighth of what the host had available when it was made
// (so the memory the cases run in stays theirs) and half of /dev/shm's room (a container's
// /dev/shm may be 64 MiB where its memory is gigabytes); it is removed with everything in it when
// this object goes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "session/execution/input_cache.h"

namespace opcert {

class InputCacheFolder {
 public:
  /// A new folder sized to `host_available` bytes, or none (cache().dir empty: each worker makes
  /// its own) where `host_available` is 0 or /dev/shm cannot be written.
  explicit InputCacheFolder(uint64_t host_available);
  ~InputCacheFolder();
  InputCacheFolder(const InputCacheFolder&) = delete;
  InputCacheFolder& operator=(const InputCacheFolder&) = delete;

  /// What the workers are told.
  const InputCache& cache() const { return cache_; }
  /// The bytes its files may take from the host (0 without a folder).
  uint64_t set_aside() const { return cache_.dir.empty() ? 0 : cache_.max_bytes; }
  /// The variables a worker's environment gets (OPCERT_INPUT_CACHE, ..._BYTES); none without a folder.
  std::vector<std::string> environment() const;
  /// Removes case `case_id`'s files: every worker is done with it.
  void forget(const std::string& case_id) const;
  /// Removes every case's files.
  void clear() const;

 private:
  InputCache cache_;
};

}  // namespace opcert
