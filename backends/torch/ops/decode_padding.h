// A varlen decode batch (one query row per sequence) as a torch user runs it in one SDPA call:
// the packed keys and values padded to the longest sequence, with a boolean mask of the keys each
// row may attend. torch 2.11's jagged nested tensors take no GQA in SDPA, and this ran faster than
// one SDPA per sequence on the H200 for a decode batch (docs/PEER.md). The helpers here compute on
// the device, from cu_seqlens_k, what the padding needs; attention.cpp makes the call.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

namespace opcert::torch_backend {

struct DecodePadding {
  at::Tensor rows;  // [Tk] int64: the row of a padded [B * Skv_max] key buffer each packed key goes to
  at::Tensor mask;  // [B, 1, 1, Skv_max] bool: the keys each sequence's one query row attends
};

/// For cu_seqlens_k [B+1] (int32, any device) whose longest sequence has skv_max keys and which
/// holds tk keys in all: where each packed key goes, and the mask of the bottom-right aligned row
/// (every key of its sequence; with window_left >= 0 the last window_left + 1 of them).
DecodePadding decode_padding(const at::Tensor& cu_seqlens_k, int64_t skv_max, int64_t tk, int64_t window_left);

}  // namespace opcert::torch_backend
