// What every op of the CUDA backend runs with: its device, its one stream (all work, copies and
// events are ordered on it), the device's properties, the cuBLASLt handle and workspace, memory.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>

#include "caching_allocator.h"
#include "collectives/in_flight_watch.h"
#include "tile_counters.h"

namespace opcert::cuda {

class LtMatmul;

struct CudaContext {
  /// Sets the device, creates the stream and the cuBLASLt handle. Throws sdk::Error.
  explicit CudaContext(int device);
  ~CudaContext();
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

  int device = 0;
  cudaDeviceProp props{};
  cudaStream_t stream = nullptr;
  cublasLtHandle_t lt = nullptr;
  CachingAllocator allocator;
  /// cuBLASLt's workspace: 32 MiB, what NVIDIA recommends for Hopper.
  static constexpr std::size_t kLtWorkspaceBytes = std::size_t{32} << 20;
  void* lt_workspace = nullptr;
  /// Temporaries of the op being run (valid until the next op asks).
  Scratch scratch;
  /// The SM count, for grid sizing.
  int sms() const { return props.multiProcessorCount; }
  /// The GEMM plans shared by the gemm, gemm_fp8 and gemm_int8 implementations.
  LtMatmul& matmul();
  /// The tile counters of persistent kernels on the stream, made and zeroed on first use.
  TileCounters& tile_counters();
  /// The collectives queued on the stream and not yet waited for: every wait on the stream goes
  /// through it, bounded by their deadlines.
  InFlightWatch collectives_in_flight;

 private:
  std::unique_ptr<LtMatmul> matmul_;
  TileCounters tile_counters_;
};

/// The device this process uses: OPCERT_DEVICE if set (the harness pins each worker of
/// `--devices` with it, docs/ABI.md), else OPCERT_CUDA_DEVICE, else the MPI local rank
/// (OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, LOCAL_RANK) modulo the device count, else 0.
int chosen_device(int device_count);

/// True when OPCERT_CUDA_DEVICE (and not OPCERT_DEVICE) chose the device: the backend then lists
/// that one GPU, as it always did, instead of every GPU.
bool confined_to_one_device();

}  // namespace opcert::cuda
