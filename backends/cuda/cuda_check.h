// CUDA and cuBLASLt failures as exceptions with one clear line: the call that failed, the error's
// name and text, and where. The SDK turns them into opcert errors at the ABI boundary; the harness
// adds the op and the case.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <string>

namespace opcert::cuda {

/// Throws sdk::Error (OUT_OF_MEMORY for allocation failures, else DEVICE) unless `status` is success.
void check_cuda(cudaError_t status, const char* call, const char* file, int line);
void check_cublas(cublasStatus_t status, const char* call, const char* file, int line);

/// After a kernel launch: a launch configuration error surfaces here, named after `kernel`.
void check_launch(const char* kernel, const char* file, int line);

}  // namespace opcert::cuda

#define OPCERT_CUDA_CHECK(call) ::opcert::cuda::check_cuda((call), #call, __FILE__, __LINE__)
#define OPCERT_CUBLAS_CHECK(call) ::opcert::cuda::check_cublas((call), #call, __FILE__, __LINE__)
#define OPCERT_CUDA_CHECK_LAUNCH(kernel) ::opcert::cuda::check_launch((kernel), __FILE__, __LINE__)
