// Buffers a torch user allocates once and keeps across calls (a padded staging tensor, say), so
// that the peer's timed call holds the copies into them and not their allocation (docs/PEER.md:
// "what is timed"). Each is zero-filled when made; the caller writes the rows it uses.
#pragma once

#include <ATen/ATen.h>

#include <string>

namespace opcert::torch_backend {

/// The kept buffer named `purpose` (one per purpose and device): the one made before when it has
/// these sizes, strides and options, else a new zero-filled one that replaces it. Strides empty:
/// contiguous. Thread-safe; the tensor shares the kept storage.
at::Tensor kept_buffer(const std::string& purpose, at::IntArrayRef sizes, at::IntArrayRef strides,
                       const at::TensorOptions& options);

}  // namespace opcert::torch_backend
