// What the CPU GEMMs' choice of kernels rests on (backends/cpu/ops/gemm_kernels_avx512_bf16.cpp,
// docs/TOLERANCES.md "Dot-product instructions"): the throughput of vdpbf16ps against vfmadd231ps on
// zmm registers, whether vdpbf16ps rounds as the two fp32 additions (acc + a1*b1) + a0*b0, and its
// treatment of subnormal inputs and results. Not built by CMake; run on an AVX512-BF16 CPU:
//   g++ -O2 -mavx512f -mavx512bw -mavx512bf16 -o probe vdpbf16ps_probe.cpp && taskset -c 1 ./probe
#include <immintrin.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>

namespace {

constexpr int kChains = 12;  // independent accumulators: more than latency x ports

template <class F>
double seconds(F f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

__attribute__((noinline)) __m512 fma_chains(long n, __m512 x) {
  __m512 acc[kChains];
  for (auto& a : acc) a = _mm512_setzero_ps();
  for (long i = 0; i < n; ++i) {
#pragma GCC unroll 12
    for (auto& a : acc) a = _mm512_fmadd_ps(x, x, a);
    __asm__ volatile("" : "+v"(x));
  }
  __m512 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm512_add_ps(s, acc[c]);
  return s;
}

__attribute__((noinline)) __m512 dp_chains(long n, __m512bh x) {
  __m512 acc[kChains];
  for (auto& a : acc) a = _mm512_setzero_ps();
  for (long i = 0; i < n; ++i) {
#pragma GCC unroll 12
    for (auto& a : acc) a = _mm512_dpbf16_ps(a, x, x);
    __asm__ volatile("" : "+v"(x));
  }
  __m512 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm512_add_ps(s, acc[c]);
  return s;
}

float bf16(uint16_t bits) {
  const uint32_t u = uint32_t{bits} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// One vdpbf16ps on 16 lanes: acc (fp32), a and b (32 bf16 each).
void dot(const float* acc, const uint16_t* a, const uint16_t* b, float* out) {
  __m512bh va, vb;
  std::memcpy(&va, a, 64);
  std::memcpy(&vb, b, 64);
  _mm512_storeu_ps(out, _mm512_dpbf16_ps(_mm512_loadu_ps(acc), va, vb));
}

}  // namespace

int main() {
  const long n = 100000000 / kChains;
  volatile float sink = 0;
  __m512bh ones;
  std::memset(&ones, 0, sizeof ones);
  for (int round = 0; round < 3; ++round) {
    const double fma = seconds([&] { sink = _mm512_reduce_add_ps(fma_chains(n, _mm512_set1_ps(1e-3f))); });
    const double dp = seconds([&] { sink = _mm512_reduce_add_ps(dp_chains(n, ones)); });
    std::printf("zmm vfmadd231ps %.3f ns, vdpbf16ps %.3f ns per instruction (16 vs 32 products)\n",
                fma / (n * kChains) * 1e9, dp / (n * kChains) * 1e9);
  }

  // Rounding: random normal inputs whose products and sums stay normal.
  std::mt19937 rng(1);
  long lanes = 0, as_two_adds = 0;
  for (int it = 0; it < 200000; ++it) {
    uint16_t a[32], b[32];
    float acc[16], out[16];
    for (int i = 0; i < 32; ++i) {
      a[i] = static_cast<uint16_t>((rng() & 0x807F) | ((100 + rng() % 50) << 7));
      b[i] = static_cast<uint16_t>((rng() & 0x807F) | ((100 + rng() % 50) << 7));
    }
    for (auto& v : acc) {
      const uint32_t u = (rng() & 0x807FFFFFu) | ((110 + rng() % 30) << 23);
      std::memcpy(&v, &u, 4);
    }
    dot(acc, a, b, out);
    for (int i = 0; i < 16; ++i) {
      float s = acc[i];
      s = s + bf16(a[2 * i + 1]) * bf16(b[2 * i + 1]);
      s = s + bf16(a[2 * i]) * bf16(b[2 * i]);
      ++lanes;
      as_two_adds += std::memcmp(&s, &out[i], 4) == 0;
    }
  }
  std::printf("rounding: %ld of %ld lanes equal (acc + a1*b1) + a0*b0 in fp32\n", as_two_adds, lanes);

  // Subnormals: an input (2^-133 * 2^100) and a result (2^-66 * 2^-66 = 2^-132).
  uint16_t a[32] = {}, b[32] = {};
  float zero[16] = {}, out[16];
  a[0] = 0x0001;  // 2^-133
  b[0] = 0x7180;  // 2^100
  dot(zero, a, b, out);
  std::printf("subnormal input: %a (exact %a)\n", out[0], 0x1p-33);
  a[0] = b[0] = 0x1E80;  // 2^-66
  dot(zero, a, b, out);
  std::printf("subnormal result: %a (exact %a)\n", out[0], 0x1p-132);
  return 0;
}
