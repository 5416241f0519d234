#include "ops/tensor_map.h"

#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <mutex>
#include <string>

#include "cuda_check.h"

namespace opcert::cuda {
namespace {

/// The driver's cuTensorMapEncodeTiled (CUDA 12.0 ABI), looked up once.
PFN_cuTensorMapEncodeTiled_v12000 encode_function() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    OPCERT_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found));
    if (found == cudaDriverEntryPointSuccess) fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  });
  if (fn == nullptr)
    check_cuda(cudaErrorNotSupported, "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)", __FILE__, __LINE__);
  return fn;
}

}  // namespace

CUtensorMap encode_tensor_map_4d(const void* base, CUtensorMapDataType dtype, const TensorMapShape& shape) {
  CUtensorMap map{};
  const cuuint32_t element_strides[4] = {1, 1, 1, 1};
  const CUresult status = encode_function()(
      &map, dtype, 4, const_cast<void*>(base), reinterpret_cast<const cuuint64_t*>(shape.sizes.data()),
      reinterpret_cast<const cuuint64_t*>(shape.strides.data()), reinterpret_cast<const cuuint32_t*>(shape.box.data()),
      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS)
    check_cuda(cudaErrorInvalidValue,
               ("cuTensorMapEncodeTiled (driver status " + std::to_string(static_cast<int>(status)) + ")").c_str(),
               __FILE__, __LINE__);
  return map;
}

}  // namespace opcert::cuda
