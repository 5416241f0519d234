#include "cuda_check.h"

#include <opcert/sdk/error.h>

#include <filesystem>

namespace opcert::cuda {
namespace {

std::string where(const char* file, int line) {
  return std::filesystem::path(file).filename().string() + ":" + std::to_string(line);
}

}  // namespace

void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  const opcert_error_code code = status == cudaErrorMemoryAllocation ? OPCERT_ERROR_OUT_OF_MEMORY : OPCERT_ERROR_DEVICE;
  throw sdk::Error(code, std::string(call) + " failed: " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status) +
                             " (" + where(file, line) + ")");
}

void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const opcert_error_code code = status == CUBLAS_STATUS_ALLOC_FAILED ? OPCERT_ERROR_OUT_OF_MEMORY : OPCERT_ERROR_DEVICE;
  throw sdk::Error(code, std::string(call) + " failed: cuBLAS status " + std::to_string(static_cast<int>(status)) +
                             " (" + where(file, line) + ")");
}

void check_launch(const char* kernel, const char* file, int line) {
  const cudaError_t status = cudaGetLastError();
  if (status == cudaSuccess) return;
  throw sdk::Error(OPCERT_ERROR_DEVICE, std::string("launch of ") + kernel + " failed: " + cudaGetErrorName(status) +
                                            ": " + cudaGetErrorString(status) + " (" + where(file, line) + ")");
}

}  // namespace opcert::cuda
