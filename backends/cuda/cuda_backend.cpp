// The CUDA backend: lists every GPU, serves one per process (chosen_device(): the worker's
// OPCERT_DEVICE), one stream, memory through a caching allocator, CUDA events for timing, the ops
// of ops/ and the collectives on NCCL (collectives/). Without a usable GPU its construction fails
// with the reason, and the registry lists it unavailable.
#include <opcert/sdk/backend.h>

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "collectives/nccl_collectives.h"
#include "cuda_check.h"
#include "cuda_context.h"
#include "cuda_implementations.h"

struct opcert_event {
  cudaEvent_t event = nullptr;
};

namespace opcert::cuda {
namespace {

// A poll of the stream or of an event: done, not yet, or (thrown) the device's error.
InFlightWatch::Progress progress_of(cudaError_t status) {
  if (status == cudaErrorNotReady) return InFlightWatch::Progress::kNotReady;
  OPCERT_CUDA_CHECK(status);
  return InFlightWatch::Progress::kDone;
}

int usable_device() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw sdk::Error(OPCERT_ERROR_DEVICE, std::string("no usable CUDA device: ") + cudaGetErrorString(status));
  }
  if (count == 0) throw sdk::Error(OPCERT_ERROR_DEVICE, "no CUDA device");
  const int device = chosen_device(count);
  if (device < 0 || device >= count)
    throw sdk::Error(OPCERT_ERROR_DEVICE, std::string(std::getenv("OPCERT_DEVICE") ? "OPCERT_DEVICE=" : "OPCERT_CUDA_DEVICE=") +
                                              std::to_string(device) + " but there are " + std::to_string(count) +
                                              " CUDA device(s)");
  return device;
}

// Device `index` as device_info reports it, with its identity (ABI 1.4): the UUID written as
// nvidia-smi and NVML write it ("GPU-" and the 16 bytes as 8-4-4-4-12 hex digits), so that reports,
// the certify manifest's GPUs and CUDA_VISIBLE_DEVICES all name a GPU alike, and the PCI bus id.
sdk::DeviceInfo describe(int index, const cudaDeviceProp& p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
  char uuid[64];
  std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, index) != cudaSuccess) {
    cudaGetLastError();
    bus[0] = '\0';  // unknown, never made up
  }
  return {{OPCERT_DEVICE_CUDA, index}, p.name, static_cast<uint64_t>(p.totalGlobalMem), p.multiProcessorCount, uuid, bus};
}

// The context, made before the bases that keep a reference to it (CudaCollectives).
struct ContextOwner {
  std::unique_ptr<CudaContext> ctx_ = std::make_unique<CudaContext>(usable_device());
};

class CudaBackend : private ContextOwner, public sdk::Backend, public sdk::EventBackend, public CudaCollectives {
 public:
  static constexpr bool kHasEvents = true;
  static constexpr bool kHasCollectives = true;

  CudaBackend() : CudaCollectives(static_cast<const sdk::Backend&>(*this), *ctx_) {
    // Every op file registered its own (cuda_implementations.h).
    for (auto& impl : CudaImplementations::make_all(*ctx_)) add(std::move(impl));
    for (auto& impl : collective_implementations(*this)) add(std::move(impl));
  }

  sdk::BackendInfo info() const override {
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    return {"cuda", "0.1.0", "opcert",
            "production CUDA backend: cuBLASLt GEMMs, flash attention and fused kernels (runtime " +
                std::to_string(runtime) + ", driver " + std::to_string(driver) + ")"};
  }

  // Every GPU, device i at position i, so that the runner and each pinned worker list the same.
  std::vector<sdk::DeviceInfo> devices() const override {
    if (confined_to_one_device()) return {describe(ctx_->device, ctx_->props)};
    int count = 0;
    OPCERT_CUDA_CHECK(cudaGetDeviceCount(&count));
    std::vector<sdk::DeviceInfo> devices;
    for (int i = 0; i < count; ++i) {
      cudaDeviceProp p{};
      OPCERT_CUDA_CHECK(cudaGetDeviceProperties(&p, i));
      devices.push_back(describe(i, p));
    }
    return devices;
  }

  void* allocate(opcert_device d, uint64_t bytes, uint64_t alignment) override {
    serves(d);
    if (alignment > 256) throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "alignment above 256 bytes is not supported");
    return ctx_->allocator.allocate(bytes);
  }
  void free(opcert_device, void* data) override { ctx_->allocator.free(data); }

  void copy(opcert_device d, opcert_copy_kind kind, void* dst, const void* src, uint64_t bytes) override {
    serves(d);
    if (bytes == 0) return;
    const cudaMemcpyKind k = kind == OPCERT_COPY_HOST_TO_DEVICE   ? cudaMemcpyHostToDevice
                             : kind == OPCERT_COPY_DEVICE_TO_HOST ? cudaMemcpyDeviceToHost
                                                                  : cudaMemcpyDeviceToDevice;
    OPCERT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, k, ctx_->stream));
    wait_for_stream();  // the ABI: complete on return
  }

  void synchronize(opcert_device d) override {
    serves(d);
    wait_for_stream();
  }

  opcert_event* event_create(opcert_device d) override {
    serves(d);
    auto e = std::make_unique<opcert_event>();
    OPCERT_CUDA_CHECK(cudaEventCreate(&e->event));
    return e.release();
  }
  void event_destroy(opcert_event* e) override {
    cudaEventDestroy(e->event);
    delete e;
  }
  void event_record(opcert_event* e) override { OPCERT_CUDA_CHECK(cudaEventRecord(e->event, ctx_->stream)); }
  double event_elapsed_ms(opcert_event* start, opcert_event* stop) override {
    cudaEvent_t event = stop->event;
    ctx_->collectives_in_flight.wait([event] { return progress_of(cudaEventQuery(event)); },
                                     [event] { OPCERT_CUDA_CHECK(cudaEventSynchronize(event)); }, false);
    float ms = 0;
    OPCERT_CUDA_CHECK(cudaEventElapsedTime(&ms, start->event, stop->event));
    return ms;
  }

 private:
  // Waits until the stream drained, bounded by the collectives in flight on it.
  void wait_for_stream() {
    cudaStream_t stream = ctx_->stream;
    ctx_->collectives_in_flight.wait([stream] { return progress_of(cudaStreamQuery(stream)); },
                                     [stream] { OPCERT_CUDA_CHECK(cudaStreamSynchronize(stream)); }, true);
  }

  // One device per process: a call for another GPU than the context's is the caller's mistake.
  void serves(opcert_device d) const {
    if (d.type == OPCERT_DEVICE_CUDA && d.index == ctx_->device) return;
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT,
                     "CUDA device " + std::to_string(d.index) + " asked of a process that serves CUDA device " +
                         std::to_string(ctx_->device) + " only (one device per process: set OPCERT_DEVICE to choose it)");
  }
};

}  // namespace
}  // namespace opcert::cuda

OPCERT_SDK_DEFINE_BUILTIN(opcert_cuda_backend_get_api, opcert::cuda::CudaBackend)
