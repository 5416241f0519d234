#include "caching_allocator.h"

#include <cuda_runtime.h>
#include <opcert/sdk/error.h>

#include <string>

#include "cuda_check.h"

namespace opcert::cuda {

CachingAllocator::~CachingAllocator() {
  for (auto& [size, p] : cached_) cudaFree(p);  // teardown: errors have nowhere to go
  for (auto& [p, size] : in_use_) cudaFree(p);
}

std::size_t CachingAllocator::size_class(std::size_t bytes) {
  // Small blocks in 512-byte steps; large ones rounded up to a quarter of their power of two,
  // so reuse is likely and the waste stays under 25%.
  if (bytes <= (1u << 20)) return ((bytes == 0 ? 1 : bytes) + 511) / 512 * 512;
  std::size_t p = std::size_t{1} << 20;
  while (p < bytes) p <<= 1;
  const std::size_t step = p / 8;
  return (bytes + step - 1) / step * step;
}

void* CachingAllocator::allocate(std::size_t bytes) {
  const std::size_t size = size_class(bytes);
  std::lock_guard lock(mutex_);
  if (auto it = cached_.find(size); it != cached_.end()) {
    void* p = it->second;
    cached_.erase(it);
    cached_bytes_ -= size;
    in_use_[p] = size;
    in_use_bytes_ += size;
    return p;
  }
  OPCERT_CUDA_CHECK(cudaSetDevice(device_));
  void* p = nullptr;
  cudaError_t status = cudaMalloc(&p, size);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the error state before trying again
    for (auto& [s, block] : cached_) cudaFree(block);
    cached_.clear();
    cached_bytes_ = 0;
    status = cudaMalloc(&p, size);
  }
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw sdk::Error(OPCERT_ERROR_OUT_OF_MEMORY, "cudaMalloc of " + std::to_string(bytes) + " bytes failed: " +
                                                     cudaGetErrorString(status) + " (" + std::to_string(in_use_bytes_) +
                                                     " bytes in use)");
  }
  in_use_[p] = size;
  in_use_bytes_ += size;
  return p;
}

void CachingAllocator::free(void* p) {
  if (p == nullptr) return;
  std::lock_guard lock(mutex_);
  const auto it = in_use_.find(p);
  if (it == in_use_.end()) throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "free of a pointer this backend did not allocate");
  cached_.emplace(it->second, p);
  cached_bytes_ += it->second;
  in_use_bytes_ -= it->second;
  in_use_.erase(it);
}

void CachingAllocator::release_cached() {
  std::lock_guard lock(mutex_);
  for (auto& [size, p] : cached_) cudaFree(p);
  cached_.clear();
  cached_bytes_ = 0;
}

std::size_t CachingAllocator::bytes_in_use() const {
  std::lock_guard lock(mutex_);
  return in_use_bytes_;
}

std::size_t CachingAllocator::bytes_cached() const {
  std::lock_guard lock(mutex_);
  return cached_bytes_;
}

Scratch::~Scratch() {
  try {
    allocator_->free(data_);
  } catch (...) {  // teardown
  }
}

void* Scratch::get(std::size_t bytes) {
  if (bytes <= bytes_ && data_ != nullptr) return data_;
  allocator_->free(data_);
  data_ = nullptr;
  data_ = allocator_->allocate(bytes);
  bytes_ = bytes;
  return data_;
}

}  // namespace opcert::cuda
