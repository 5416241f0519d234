#include "ops/lt_matmul.h"

#include <opcert/sdk/error.h>
#include <opcert/sdk/op_call.h>

#include <algorithm>
#include <array>
#include <vector>

#include "cuda_check.h"

namespace opcert::cuda {

struct LtMatmul::Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;  // cuBLASLt's A (our b), B (our a), C = D
  std::vector<cublasLtMatmulHeuristicResult_t> candidates;
  std::optional<cublasLtMatmulAlgo_t> chosen;
  std::size_t workspace = 0;
  bool int_scale = false;

  ~Plan() {
    if (desc) cublasLtMatmulDescDestroy(desc);
    for (auto* l : {a, b, d})
      if (l) cublasLtMatrixLayoutDestroy(l);
  }
};

namespace {

template <class T>
void set(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const T& value) {
  OPCERT_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof(value)));
}

cublasLtMatmulMatrixScale_t scale_mode_of(ScaleMode m, bool for_weight) {
  switch (m) {
    case ScaleMode::kOuterVector: return CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
    // DeepSeek-V3 blocks: 128×128 on the weight (our B), 1×128 along K on the activations (our A).
    case ScaleMode::kBlock: return for_weight ? CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F : CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    default: return CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  }
}

}  // namespace

std::string LtProblem::key() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + (b_kn ? "kn" : "nk") + "/" +
         std::to_string(a_type) + "," + std::to_string(b_type) + "," + std::to_string(c_type) + "," +
         std::to_string(compute) + "," + std::to_string(scale_type) + (bias ? "+bias" : "") + "/s" +
         std::to_string(static_cast<int>(scale_mode)) + (fast_accumulation ? "fast" : "");
}

cudaDataType_t cuda_data_type(int32_t d) {
  switch (d) {
    case OPCERT_DTYPE_F32: return CUDA_R_32F;
    case OPCERT_DTYPE_F16: return CUDA_R_16F;
    case OPCERT_DTYPE_BF16: return CUDA_R_16BF;
    case OPCERT_DTYPE_F8_E4M3FN: return CUDA_R_8F_E4M3;
    case OPCERT_DTYPE_F8_E5M2: return CUDA_R_8F_E5M2;
    case OPCERT_DTYPE_I8: return CUDA_R_8I;
    case OPCERT_DTYPE_I32: return CUDA_R_32I;
    default: throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, "dtype " + sdk::dtype_name(d) + " has no cuBLASLt type");
  }
}

LtMatmul::~LtMatmul() {
  for (auto& [key, plan] : plans_) delete plan;
}

LtMatmul::Plan& LtMatmul::plan_for(const LtProblem& p) {
  const std::string key = p.key();
  if (auto it = plans_.find(key); it != plans_.end()) return *it->second;
  auto plan = std::make_unique<Plan>();
  plan->int_scale = p.scale_type == CUDA_R_32I;
  OPCERT_CUBLAS_CHECK(cublasLtMatmulDescCreate(&plan->desc, p.compute, p.scale_type));
  set(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, p.b_kn ? CUBLAS_OP_N : CUBLAS_OP_T);
  set(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  if (p.bias) {
    set(plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_BIAS);
    set(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, p.c_type);
  }
  if (p.scale_mode == ScaleMode::kOuterVector || p.scale_mode == ScaleMode::kBlock) {
    set(plan->desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, scale_mode_of(p.scale_mode, true));
    set(plan->desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, scale_mode_of(p.scale_mode, false));
    // cuBLASLt 13.1 answers the heuristic query for vector and block scale modes with
    // CUBLAS_STATUS_INVALID_VALUE unless the scale pointers are set (ci/gpu/probes/
    // lt_scale_plan_probe.cu; docs/PERFORMANCE.md). A plan is made before any call's operands are
    // known, so any device address stands in for them here; run() sets the call's own.
    set(plan->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, ctx_->lt_workspace);
    set(plan->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, ctx_->lt_workspace);
  }
  if (p.fast_accumulation) set(plan->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, int8_t{1});
  const auto rows_b = p.b_kn ? p.n : p.k, cols_b = p.b_kn ? p.k : p.n;
  OPCERT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->a, p.b_type, rows_b, cols_b, rows_b));
  OPCERT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->b, p.a_type, p.k, p.m, p.k));
  OPCERT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->d, p.c_type, p.n, p.m, p.n));

  cublasLtMatmulPreference_t pref = nullptr;
  OPCERT_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t workspace = CudaContext::kLtWorkspaceBytes;
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace));
  std::array<cublasLtMatmulHeuristicResult_t, 8> results{};
  int returned = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(ctx_->lt, plan->desc, plan->a, plan->b, plan->d,
                                                               plan->d, pref, static_cast<int>(results.size()),
                                                               results.data(), &returned);
  cublasLtMatmulPreferenceDestroy(pref);
  if (status == CUBLAS_STATUS_SUCCESS)
    for (int i = 0; i < returned; ++i)
      if (results[static_cast<std::size_t>(i)].state == CUBLAS_STATUS_SUCCESS)
        plan->candidates.push_back(results[static_cast<std::size_t>(i)]);
  Plan& ref = *plan;
  plans_[key] = plan.release();
  return ref;
}

std::optional<std::string> LtMatmul::unsupported(const LtProblem& p) {
  if (plan_for(p).candidates.empty())
    return "cuBLASLt has no algorithm for this problem (M " + std::to_string(p.m) + ", N " + std::to_string(p.n) +
           ", K " + std::to_string(p.k) + ")";
  return std::nullopt;
}

namespace {

struct Scalars {
  float f1 = 1.f, f0 = 0.f;
  int32_t i1 = 1, i0 = 0;
};

}  // namespace

void LtMatmul::choose_algorithm(Plan& plan, const LtOperands& o) {
  // Each of the first four candidates: once to warm up, then twice timed; the fastest wins.
  cudaEvent_t start = nullptr, stop = nullptr;
  OPCERT_CUDA_CHECK(cudaEventCreate(&start));
  OPCERT_CUDA_CHECK(cudaEventCreate(&stop));
  Scalars s;
  const void* alpha = plan.int_scale ? static_cast<const void*>(&s.i1) : &s.f1;
  const void* beta = plan.int_scale ? static_cast<const void*>(&s.i0) : &s.f0;
  float best = 0;
  const std::size_t n = std::min<std::size_t>(plan.candidates.size(), 4);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& cand = plan.candidates[i];
    bool ok = true;
    for (int rep = 0; rep < 3 && ok; ++rep) {
      if (rep == 1) cudaEventRecord(start, ctx_->stream);
      ok = cublasLtMatmul(ctx_->lt, plan.desc, alpha, o.b, plan.a, o.a, plan.b, beta, o.c, plan.d, o.c, plan.d,
                          &cand.algo, ctx_->lt_workspace, cand.workspaceSize, ctx_->stream) == CUBLAS_STATUS_SUCCESS;
    }
    if (!ok) continue;
    cudaEventRecord(stop, ctx_->stream);
    OPCERT_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (!plan.chosen || ms < best) {
      best = ms;
      plan.chosen = cand.algo;
      plan.workspace = cand.workspaceSize;
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!plan.chosen) throw sdk::Error(OPCERT_ERROR_DEVICE, "cuBLASLt: every candidate algorithm failed to run");
}

void LtMatmul::run(const LtProblem& p, const LtOperands& o) {
  Plan& plan = plan_for(p);
  if (plan.candidates.empty()) throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, *unsupported(p));
  if (p.bias) set(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, o.bias);
  if (p.scale_mode != ScaleMode::kNone) {
    set(plan.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, o.b_scale);
    set(plan.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, o.a_scale);
  }
  if (!plan.chosen) choose_algorithm(plan, o);
  Scalars s;
  const void* alpha = plan.int_scale ? static_cast<const void*>(&s.i1) : &s.f1;
  const void* beta = plan.int_scale ? static_cast<const void*>(&s.i0) : &s.f0;
  OPCERT_CUBLAS_CHECK(cublasLtMatmul(ctx_->lt, plan.desc, alpha, o.b, plan.a, o.a, plan.b, beta, o.c, plan.d, o.c,
                                     plan.d, &*plan.chosen, ctx_->lt_workspace, plan.workspace, ctx_->stream));
}

}  // namespace opcert::cuda
