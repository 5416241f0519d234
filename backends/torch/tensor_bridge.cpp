#include "tensor_bridge.h"

#include <opcert/sdk/error.h>
#include <torch/cuda.h>

#include <string>
#include <vector>

#include "pending_outputs.h"
#include "torch_version.h"

namespace opcert::torch_backend {

at::ScalarType scalar_type(int32_t opcert_dtype) {
  switch (opcert_dtype) {
    case OPCERT_DTYPE_F64: return at::kDouble;
    case OPCERT_DTYPE_F32: return at::kFloat;
    case OPCERT_DTYPE_F16: return at::kHalf;
    case OPCERT_DTYPE_BF16: return at::kBFloat16;
    case OPCERT_DTYPE_F8_E4M3FN:
    case OPCERT_DTYPE_F8_E5M2: return at::kByte;
    case OPCERT_DTYPE_I8: return at::kChar;
    case OPCERT_DTYPE_I32: return at::kInt;
    default: throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "unknown opcert dtype " + std::to_string(opcert_dtype));
  }
}

namespace {

at::Device device_of(const opcert_device& d) {
  switch (d.type) {
    case OPCERT_DEVICE_CPU: return at::Device(at::kCPU);
    case OPCERT_DEVICE_CUDA: return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(d.index));
    default: throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "torch backend cannot address device type " + std::to_string(d.type));
  }
}

}  // namespace

at::Tensor wrap(const sdk::Tensor& t) {
  const std::vector<int64_t> sizes(t.shape().begin(), t.shape().end());
  const auto options = at::TensorOptions().dtype(scalar_type(t.dtype())).device(device_of(t.device()));
  // An empty operand may come without memory; from_blob wants none of it anyway.
  if (t.numel() == 0 || t.raw().data == nullptr) return at::empty(sizes, options);
  if (t.raw().strides == nullptr) return at::from_blob(t.data(), sizes, options);
  const std::vector<int64_t> strides(t.raw().strides, t.raw().strides + t.ndim());
  return at::from_blob(t.data(), sizes, strides, options);
}

c10::optional<at::Tensor> wrap(const std::optional<sdk::Tensor>& t) {
  if (!t) return c10::nullopt;
  return wrap(*t);
}

std::size_t cuda_device_count() {
  static const std::size_t count = torch::cuda::is_available() ? torch::cuda::device_count() : 0;
  return count;
}

int32_t operand_device_type() { return cuda_device_count() > 0 ? OPCERT_DEVICE_CUDA : OPCERT_DEVICE_CPU; }

void write_output(const sdk::Tensor& out, const at::Tensor& value) {
  if (out.numel() == 0) return;
  at::Tensor dst = wrap(out);
  if (dst.sizes() != value.sizes())
    throw sdk::Error(OPCERT_ERROR_INTERNAL, "output '" + std::string(out.name()) + "' has shape " +
                                                c10::str(dst.sizes()) + " but the result has " + c10::str(value.sizes()));
  if (pending_outputs().enabled()) return pending_outputs().keep(out, value);
  dst.copy_(value);
}

at::ScalarType compute_dtype(at::ScalarType dtype, const at::Device& device) {
#if !OPCERT_TORCH_AT_LEAST(2, 1)
  if (dtype == at::kHalf && device.is_cpu()) return at::kFloat;  // no CPU fp16 matmul/softmax/layer_norm
#else
  (void)device;
#endif
  return dtype;
}

at::Tensor to_compute_dtype(const at::Tensor& x) { return x.to(compute_dtype(x.scalar_type(), x.device())); }

}  // namespace opcert::torch_backend
