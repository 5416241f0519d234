// Two ints of device memory for the dynamic tile schedulers of persistent kernels on one stream
// (attention_ws_kernel.cuh's WsTileQueue). A launch takes its tiles from one counter, which is zero
// when it starts, and zeroes the other for the next launch; launches alternate between the two.
// Nothing then runs between two launches (no memset), and a launch that stopped half-way leaves
// only its own counter dirty, which the next launch zeroes. Used by one stream (its launches are
// ordered), and not inside a captured CUDA graph (a replay would find its counter used); plain C++.
#pragma once

namespace opcert::cuda {

struct TileCounters {
  /// Two ints of device memory, zero before the first launch (the owner's memset).
  int* device = nullptr;
  /// Persistent launches made with them so far.
  unsigned launches = 0;

  /// The counter of the launch about to be made, and the one it zeroes for the next.
  int* now() const { return device + (launches & 1u); }
  int* next() const { return device + ((launches + 1u) & 1u); }
  /// Records a launch that was made (only then: a launch that failed to start zeroed nothing).
  void launched() { ++launches; }
};

}  // namespace opcert::cuda
