// The yardstick of the collective bench: NCCL alone, timed the way nccl-tests' *_perf tools time
// it (one process driving every GPU, a communicator each from ncclCommInitAll, each collective
// launched on all GPUs in one group; `warmup` untimed, then `iters` back to back on each GPU's stream
// between two events; the mean per collective, the slowest GPU's). Prints one line per
// (collective, dtype, in/out of place, size) with time, algbw and busbw (nccl-tests' bus factors),
// the sizes being the per-rank buffer sizes opcert's bench reports (bench/collective_sweep.cpp).
// Our own code; nccl-tests is the model, not the source.
//   nvcc -O2 -std=c++17 -I$NCCL/include -L$NCCL/lib -Xlinker -rpath=$NCCL/lib -lnccl \
//     -o nccl_busbw_probe ci/gpu/probes/nccl_busbw_probe.cu
//   ./nccl_busbw_probe [MIN_BYTES MAX_BYTES [ITERS WARMUP [COLLECTIVES]]]   (COLLECTIVES: a comma list)
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CUDA_OK(x)                                                                          \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)
#define NCCL_OK(x)                                                                          \
  do {                                                                                      \
    ncclResult_t r_ = (x);                                                                  \
    if (r_ != ncclSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, ncclGetErrorString(r_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

enum class Op { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kAllToAll };

struct OpInfo {
  Op op;
  const char* name;
};
constexpr OpInfo kOps[] = {{Op::kAllReduce, "all_reduce"},
                           {Op::kAllGather, "all_gather"},
                           {Op::kReduceScatter, "reduce_scatter"},
                           {Op::kBroadcast, "broadcast"},
                           {Op::kAllToAll, "all_to_all"}};

// nccl-tests' bus factors: what each rank's link carries relative to the algorithm bandwidth.
double bus_factor(Op op, int n) {
  switch (op) {
    case Op::kAllReduce: return 2.0 * (n - 1) / n;
    case Op::kBroadcast: return 1.0;
    default: return static_cast<double>(n - 1) / n;
  }
}

// The per-rank element counts of send and receive buffers for a collective whose reported size is
// `bytes`, as nccl-tests and opcert's bench report it: the larger of the two buffers.
struct Counts {
  size_t send = 0;
  size_t recv = 0;
  size_t unit = 0;  // the count passed to NCCL
};
Counts counts(Op op, size_t elements, int n) {
  switch (op) {
    case Op::kAllReduce:
    case Op::kBroadcast: return {elements, elements, elements};
    case Op::kAllGather: return {elements / n, elements / n * n, elements / n};
    case Op::kReduceScatter: return {elements / n * n, elements / n, elements / n};
    case Op::kAllToAll: return {elements / n * n, elements / n * n, elements / n};
  }
  return {};
}

void launch(Op op, const void* send, void* recv, size_t unit, ncclDataType_t type, ncclComm_t comm, cudaStream_t s,
            int n, size_t width) {
  switch (op) {
    case Op::kAllReduce: NCCL_OK(ncclAllReduce(send, recv, unit, type, ncclSum, comm, s)); break;
    case Op::kAllGather: NCCL_OK(ncclAllGather(send, recv, unit, type, comm, s)); break;
    case Op::kReduceScatter: NCCL_OK(ncclReduceScatter(send, recv, unit, type, ncclSum, comm, s)); break;
    case Op::kBroadcast: NCCL_OK(ncclBroadcast(send, recv, unit, type, 0, comm, s)); break;
    case Op::kAllToAll:
      for (int peer = 0; peer < n; ++peer) {
        NCCL_OK(ncclSend(static_cast<const char*>(send) + peer * unit * width, unit, type, peer, comm, s));
        NCCL_OK(ncclRecv(static_cast<char*>(recv) + peer * unit * width, unit, type, peer, comm, s));
      }
      break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const size_t min_bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 8;
  const size_t max_bytes = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : size_t{1} << 30;
  const int iters = argc > 3 ? std::atoi(argv[3]) : 20;
  const int warmup = argc > 4 ? std::atoi(argv[4]) : 5;
  const std::string only = argc > 5 ? argv[5] : "";
  int n = 0;
  CUDA_OK(cudaGetDeviceCount(&n));
  std::vector<int> devs(n);
  for (int i = 0; i < n; ++i) devs[i] = i;
  std::vector<ncclComm_t> comms(n);
  NCCL_OK(ncclCommInitAll(comms.data(), n, devs.data()));
  int version = 0;
  NCCL_OK(ncclGetVersion(&version));
  std::printf("# NCCL %d, %d GPU(s), iters %d, warmup %d, NCCL_NVLS_ENABLE=%s\n", version, n, iters, warmup,
              std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : "(unset)");
  std::printf("%-15s %-5s %-6s %12s %12s %10s %10s\n", "collective", "dtype", "place", "bytes", "time_us", "algbw",
              "busbw");
  std::vector<cudaStream_t> streams(n);
  std::vector<cudaEvent_t> start(n), stop(n);
  std::vector<void*> sendbuf(n), recvbuf(n);
  const size_t buffer_bytes = max_bytes + 4096;
  for (int i = 0; i < n; ++i) {
    CUDA_OK(cudaSetDevice(i));
    CUDA_OK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreate(&start[i]));
    CUDA_OK(cudaEventCreate(&stop[i]));
    CUDA_OK(cudaMalloc(&sendbuf[i], buffer_bytes));
    CUDA_OK(cudaMalloc(&recvbuf[i], buffer_bytes));
    CUDA_OK(cudaMemset(sendbuf[i], 0, buffer_bytes));
    CUDA_OK(cudaMemset(recvbuf[i], 0, buffer_bytes));
  }
  struct Type {
    ncclDataType_t type;
    const char* name;
    size_t width;
  };
  const Type types[] = {{ncclFloat32, "fp32", 4}, {ncclBfloat16, "bf16", 2}};
  for (const OpInfo& info : kOps) {
    if (!only.empty() && ("," + only + ",").find("," + std::string(info.name) + ",") == std::string::npos) continue;
    for (const Type& t : types) {
      for (int in_place = 0; in_place < 2; ++in_place) {
        if (in_place && info.op == Op::kAllToAll) continue;  // NCCL has no in-place all_to_all
        for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
          const size_t elements = bytes / t.width;
          const Counts c = counts(info.op, elements, n);
          if (c.unit == 0) continue;
          auto run = [&](int count) {
            NCCL_OK(ncclGroupStart());
            for (int i = 0; i < n; ++i) {
              // In place as NCCL defines it: the send buffer is this rank's slice of the receive one.
              const size_t slice = (info.op == Op::kAllGather) ? i * c.unit * t.width : 0;
              const void* send = in_place ? static_cast<char*>(recvbuf[i]) + slice : sendbuf[i];
              for (int k = 0; k < count; ++k)
                launch(info.op, send, recvbuf[i], c.unit, t.type, comms[i], streams[i], n, t.width);
            }
            NCCL_OK(ncclGroupEnd());
          };
          for (int k = 0; k < warmup; ++k) run(1);
          for (int i = 0; i < n; ++i) {
            CUDA_OK(cudaSetDevice(i));
            CUDA_OK(cudaStreamSynchronize(streams[i]));
            CUDA_OK(cudaEventRecord(start[i], streams[i]));
          }
          for (int k = 0; k < iters; ++k) run(1);
          double worst_ms = 0;
          for (int i = 0; i < n; ++i) {
            CUDA_OK(cudaSetDevice(i));
            CUDA_OK(cudaEventRecord(stop[i], streams[i]));
          }
          for (int i = 0; i < n; ++i) {
            CUDA_OK(cudaEventSynchronize(stop[i]));
            float ms = 0;
            CUDA_OK(cudaEventElapsedTime(&ms, start[i], stop[i]));
            if (ms > worst_ms) worst_ms = ms;
          }
          const double seconds = worst_ms / 1e3 / iters;
          const size_t reported = std::max(c.send, c.recv) * t.width;
          const double algbw = static_cast<double>(reported) / seconds / 1e9;
          std::printf("%-15s %-5s %-6s %12zu %12.2f %10.2f %10.2f\n", info.name, t.name, in_place ? "in" : "out",
                      reported, seconds * 1e6, algbw, algbw * bus_factor(info.op, n));
          std::fflush(stdout);
        }
      }
    }
  }
  for (int i = 0; i < n; ++i) NCCL_OK(ncclCommDestroy(comms[i]));
  return 0;
}
