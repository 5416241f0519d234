#include "kept_buffers.h"

#include <map>
#include <mutex>
#include <utility>

namespace opcert::torch_backend {

at::Tensor kept_buffer(const std::string& purpose, at::IntArrayRef sizes, at::IntArrayRef strides,
                       const at::TensorOptions& options) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, at::Tensor> kept;  // (purpose, device) -> buffer
  const std::lock_guard<std::mutex> lock(mutex);
  at::Tensor& buffer = kept[{purpose, options.device().str()}];
  const bool same = buffer.defined() && buffer.sizes() == sizes && buffer.dtype() == options.dtype() &&
                    (strides.empty() ? buffer.is_contiguous() : buffer.strides() == strides);
  if (!same) {
    buffer = at::Tensor();  // free the old one before making its replacement
    buffer = strides.empty() ? at::zeros(sizes, options) : at::empty_strided(sizes, strides, options).zero_();
  }
  return buffer;
}

}  // namespace opcert::torch_backend
