// Device memory through a cache, as frameworks do: cudaMalloc and cudaFree synchronise the device
// and cost tens of microseconds, so freed blocks are kept by size class and reused. All work runs on
// the backend's one stream, so a block freed by the host is safe to hand out again for later work.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <unordered_map>

namespace opcert::cuda {

class CachingAllocator {
 public:
  explicit CachingAllocator(int device) : device_(device) {}
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /// At least `bytes` (rounded up to a size class), 256-byte aligned. On cudaMalloc failure the
  /// cache is released and the allocation tried once more; then throws sdk::Error(OUT_OF_MEMORY).
  void* allocate(std::size_t bytes);
  /// Returns a block to the cache. nullptr is a no-op; a pointer this allocator did not give is
  /// an INVALID_ARGUMENT error.
  void free(void* p);
  /// cudaFree of every cached block (not those in use).
  void release_cached();

  std::size_t bytes_in_use() const;
  std::size_t bytes_cached() const;

 private:
  static std::size_t size_class(std::size_t bytes);

  int device_;
  mutable std::mutex mutex_;
  std::multimap<std::size_t, void*> cached_;          // size class -> free blocks
  std::unordered_map<void*, std::size_t> in_use_;     // block -> its size class
  std::size_t cached_bytes_ = 0, in_use_bytes_ = 0;
};

/// A growable device buffer for an op's temporaries (a workspace, an int32 accumulator): valid
/// until the next request, which is safe because every op is queued on the same stream.
class Scratch {
 public:
  explicit Scratch(CachingAllocator& allocator) : allocator_(&allocator) {}
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void* get(std::size_t bytes);

 private:
  CachingAllocator* allocator_;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace opcert::cuda
