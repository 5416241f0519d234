// Which difference between opcert's cuBLASLt plan (backends/cuda/ops/lt_matmul.cpp) and a plain
// heuristic query decides whether cuBLASLt offers an algorithm for fp8 outer-vector (row-wise) and
// block scales: the scale pointers set before the query or not, a bias epilogue, which operand gets
// the 128x128 blocks, the output type, and M. Prints one line per variant with the algorithm count.
//   nvcc -O2 -o probe lt_scale_plan_probe.cu -lcublasLt && ./probe
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

struct Variant {
  const char* mode;
  int a_mode, b_mode;
  bool pointers_before;
  bool bias;
  cudaDataType_t out;
  int m;
};

int count(cublasLtHandle_t h, const Variant& v, void* scales, void* bias) {
  const int M = v.m, N = 6144, K = 4096;
  cublasLtMatmulDesc_t d;
  cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n);
  if (v.bias) {
    cublasLtEpilogue_t e = CUBLASLT_EPILOGUE_BIAS;
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof e);
    cudaDataType_t bt = v.out;
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt);
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
  }
  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &v.a_mode, sizeof v.a_mode);
  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &v.b_mode, sizeof v.b_mode);
  if (v.pointers_before) {
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scales, sizeof scales);
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scales, sizeof scales);
  }
  cublasLtMatrixLayout_t A, B, D;
  cublasLtMatrixLayoutCreate(&A, CUDA_R_8F_E4M3, K, N, K);
  cublasLtMatrixLayoutCreate(&B, CUDA_R_8F_E4M3, K, M, K);
  cublasLtMatrixLayoutCreate(&D, v.out, N, M, N);
  cublasLtMatmulPreference_t p;
  cublasLtMatmulPreferenceCreate(&p);
  uint64_t ws = 32u << 20;
  cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  cublasLtMatmulHeuristicResult_t r[8];
  int got = 0;
  const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(h, d, A, B, D, D, p, 8, r, &got);
  cublasLtMatmulPreferenceDestroy(p);
  cublasLtMatrixLayoutDestroy(A);
  cublasLtMatrixLayoutDestroy(B);
  cublasLtMatrixLayoutDestroy(D);
  cublasLtMatmulDescDestroy(d);
  return st == CUBLAS_STATUS_SUCCESS ? got : -static_cast<int>(st);
}

int main() {
  cublasLtHandle_t h;
  cublasLtCreate(&h);
  std::printf("cublasLt version %zu\n", cublasLtGetVersion());
  void* scales;
  void* bias;
  cudaMalloc(&scales, sizeof(float) * 8192 * 4096);
  cudaMalloc(&bias, 4 * 6144);
  const int ov = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F, v128 = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F,
            b128 = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
  std::printf("%-22s %-9s %-5s %-5s %-6s %s\n", "mode (A x B)", "pointers", "bias", "out", "M", "algorithms");
  struct Modes {
    const char* name;
    int a, b;
  };
  const Modes modes[] = {{"outer x outer", ov, ov}, {"blk128 x vec128", b128, v128}, {"vec128 x blk128", v128, b128}};
  for (const Modes& mode : modes)
    for (const bool before : {false, true})
      for (const bool with_bias : {false, true})
        for (const cudaDataType_t out : {CUDA_R_16BF, CUDA_R_32F})
          for (const int m : {1, 16, 128, 8192}) {
            const Variant v{mode.name, mode.a, mode.b, before, with_bias, out, m};
            std::printf("%-22s %-9s %-5s %-5s %-6d %d\n", mode.name, before ? "before" : "after", with_bias ? "yes" : "no",
                        out == CUDA_R_16BF ? "bf16" : "fp32", m, count(h, v, scales, bias));
          }
  return 0;
}
