// Which tile of the skinny fp8 GEMM (backends/cuda/ops/gemm_fp8_skinny_kernel.cuh) streams the
// weight fastest at the Llama-3 decode shapes: per tile and shape, the kernel's time with a cold L2
// (a 256 MiB write between launches, each launch between two events; the median of 15) and the
// weight bytes over that time. What the GPU can read is printed first (a cold device-to-device
// copy of the same bytes), as the yardstick.
//   nvcc -O3 -std=c++20 -arch=sm_90 -I backends/cuda -I backends/sdk/include -I include -o probe \
//     ci/gpu/probes/fp8_skinny_probe.cu && ./probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "ops/gemm_fp8_skinny_kernel.cuh"

namespace {

using opcert::cuda::EpilogueOut;
using opcert::cuda::Fp8MmaProblem;

#define CHECK(x)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

struct Shape {
  const char* name;
  long n, k;
};

void* flush_buffer() {
  static void* buf = nullptr;
  if (!buf) CHECK(cudaMalloc(&buf, 256 << 20));
  return buf;
}

template <class Launch>
float cold_median_us(Launch launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int i = 0; i < 16; ++i) {
    CHECK(cudaMemsetAsync(flush_buffer(), i, 256 << 20));
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (i > 0) t.push_back(ms * 1000.f);  // the first launch also pays for loading the module
  }
  CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T>
void time_tile(const char* tile, const Shape& s, int m, const Fp8MmaProblem& base) {
  Fp8MmaProblem p = base;
  p.m = m;
  p.n = s.n;
  p.k = s.k;
  auto* kernel = opcert::cuda::skinny::fp8_skinny_gemm_kernel<T, false, false>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSmemBytes));
  const unsigned grid = static_cast<unsigned>((s.n + T::kTileN - 1) / T::kTileN);
  const float us = cold_median_us([&] { kernel<<<grid, T::kThreads, T::kSmemBytes>>>(p); });
  std::printf("%-14s %-22s m%-3d %8.1f us %7.0f GB/s\n", tile, s.name, m, us, double(s.n) * s.k / us / 1e3);
}

}  // namespace

int main() {
  const Shape shapes[] = {{"8b.qkv_proj", 6144, 4096},    {"8b.o_proj", 4096, 4096},    {"8b.gate_up_proj", 28672, 4096},
                          {"8b.down_proj", 4096, 14336},  {"70b.qkv_proj", 10240, 8192}, {"70b.o_proj", 8192, 8192},
                          {"70b.gate_up_proj", 57344, 8192}, {"70b.down_proj", 8192, 28672}};
  const long max_a = 16L * 28672, max_b = 57344L * 8192;
  void *a, *b, *c;
  float *a_scale, *b_scale;
  CHECK(cudaMalloc(&a, max_a));
  CHECK(cudaMalloc(&b, max_b));
  CHECK(cudaMalloc(&c, 16L * 57344 * 2));
  CHECK(cudaMalloc(&a_scale, 16 * 4));
  CHECK(cudaMalloc(&b_scale, 57344 * 4));
  CHECK(cudaMemset(a, 0x38, max_a));  // e4m3 1.0
  CHECK(cudaMemset(b, 0x30, max_b));  // e4m3 0.5
  CHECK(cudaMemset(a_scale, 0, 16 * 4));
  CHECK(cudaMemset(b_scale, 0, 57344 * 4));
  Fp8MmaProblem base;
  base.scaling = opcert::sdk::Fp8Scaling::kChannel;
  base.a = a;
  base.b = b;
  base.c = c;
  base.a_scale = a_scale;
  base.b_scale = b_scale;
  base.out = EpilogueOut::kBf16;

  void* copy_dst;
  CHECK(cudaMalloc(&copy_dst, max_b));
  for (const Shape& s : shapes) {
    const float us = cold_median_us([&] { CHECK(cudaMemcpyAsync(copy_dst, b, s.n * s.k, cudaMemcpyDeviceToDevice)); });
    std::printf("%-14s %-22s      %8.1f us %7.0f GB/s (read + write: %.0f)\n", "d2d copy", s.name, us,
                double(s.n) * s.k / us / 1e3, 2.0 * s.n * s.k / us / 1e3);
  }
  using opcert::cuda::skinny::Tile;
  for (int m : {1, 16})
    for (const Shape& s : shapes) {
      time_tile<Tile<32, 4, 4>>("t32 w4 s4", s, m, base);
      time_tile<Tile<32, 4, 8>>("t32 w4 s8", s, m, base);
      time_tile<Tile<16, 4, 4>>("t16 w4 s4", s, m, base);
      time_tile<Tile<16, 4, 8>>("t16 w4 s8", s, m, base);
      time_tile<Tile<64, 4, 4>>("t64 w4 s4", s, m, base);
      time_tile<Tile<32, 8, 4>>("t32 w8 s4", s, m, base);
      time_tile<Tile<16, 8, 4>>("t16 w8 s4", s, m, base);
      time_tile<Tile<16, 2, 8>>("t16 w2 s8", s, m, base);
      time_tile<Tile<8, 4, 8>>("t8 w4 s8", s, m, base);
    }
  return 0;
}
