// Host-side encoding of TMA tensor maps (cuTensorMapEncodeTiled), reached through the runtime's
// driver entry point so that the backend need not link libcuda itself.
#pragma once

#include <cuda.h>

#include <array>
#include <cstdint>

namespace opcert::cuda {

/// A row-major tensor of up to 4 dimensions as TMA sees it: sizes innermost first, byte strides of
/// dimensions 1.. (dimension 0 is contiguous), and the box one copy moves.
struct TensorMapShape {
  std::array<uint64_t, 4> sizes{};    // elements per dimension, innermost first
  std::array<uint64_t, 3> strides{};  // bytes between consecutive indices of dimensions 1, 2, 3
  std::array<uint32_t, 4> box{};      // elements per copy per dimension (box[0] · element bytes <= 128 with swizzle)
};

/// Encodes a 4-d tiled map of `dtype` over `base` with the 128-byte swizzle, zero fill outside the
/// tensor and 256-byte L2 promotion. Throws sdk::Error (DEVICE) with the driver's reason when the
/// driver refuses it (alignment, strides, box).
CUtensorMap encode_tensor_map_4d(const void* base, CUtensorMapDataType dtype, const TensorMapShape& shape);

}  // namespace opcert::cuda
