#include "cuda_context.h"

#include <cstdlib>
#include <string>

#include <opcert/sdk/error.h>

#include "cuda_check.h"
#include "ops/lt_matmul.h"

namespace opcert::cuda {

CudaContext::CudaContext(int dev) : device(dev), allocator(dev), scratch(allocator) {
  OPCERT_CUDA_CHECK(cudaSetDevice(device));
  OPCERT_CUDA_CHECK(cudaGetDeviceProperties(&props, device));
  OPCERT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  OPCERT_CUBLAS_CHECK(cublasLtCreate(&lt));
  lt_workspace = allocator.allocate(kLtWorkspaceBytes);
}

LtMatmul& CudaContext::matmul() {
  if (!matmul_) matmul_ = std::make_unique<LtMatmul>(*this);
  return *matmul_;
}

TileCounters& CudaContext::tile_counters() {
  if (tile_counters_.device == nullptr) {
    void* const ints = allocator.allocate(2 * sizeof(int));
    // (zeroed on the stream, before any kernel that takes them)
    OPCERT_CUDA_CHECK(cudaMemsetAsync(ints, 0, 2 * sizeof(int), stream));
    tile_counters_.device = static_cast<int*>(ints);
  }
  return tile_counters_;
}

CudaContext::~CudaContext() {
  if (stream) cudaStreamSynchronize(stream);
  matmul_.reset();
  try {
    allocator.free(lt_workspace);
    if (tile_counters_.device != nullptr) allocator.free(tile_counters_.device);
  } catch (...) {  // teardown
  }
  if (lt) cublasLtDestroy(lt);
  if (stream) cudaStreamDestroy(stream);
}

int chosen_device(int device_count) {
  // Both set: the runner listed only OPCERT_CUDA_DEVICE's GPU (as its device 0) and then pinned a
  // worker by an index into that list; honouring either alone would tag results with the wrong GPU.
  if (std::getenv("OPCERT_DEVICE") != nullptr && std::getenv("OPCERT_CUDA_DEVICE") != nullptr)
    throw sdk::Error(OPCERT_ERROR_DEVICE, "OPCERT_CUDA_DEVICE and --devices (OPCERT_DEVICE) both choose the GPU: unset "
                                          "OPCERT_CUDA_DEVICE and name the GPUs with --devices");
  if (const char* v = std::getenv("OPCERT_DEVICE")) return std::atoi(v);  // the harness pinned this worker
  if (const char* v = std::getenv("OPCERT_CUDA_DEVICE")) return std::atoi(v);
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "LOCAL_RANK"})
    if (const char* v = std::getenv(name)) return device_count > 0 ? std::atoi(v) % device_count : 0;
  return 0;
}

bool confined_to_one_device() {
  return std::getenv("OPCERT_DEVICE") == nullptr && std::getenv("OPCERT_CUDA_DEVICE") != nullptr;
}

}  // namespace opcert::cuda
