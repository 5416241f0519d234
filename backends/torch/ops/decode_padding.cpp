#include "ops/decode_padding.h"

namespace opcert::torch_backend {

DecodePadding decode_padding(const at::Tensor& cu_seqlens_k, int64_t skv_max, int64_t tk, int64_t window_left) {
  const at::Tensor cu = cu_seqlens_k.to(at::kLong);
  const int64_t batch = cu.size(0) - 1;
  const at::Tensor starts = cu.narrow(0, 0, batch), ends = cu.narrow(0, 1, batch);
  const auto opts = cu.options();
  // Key t of the packed tensor belongs to the sequence b with starts[b] <= t < ends[b]: the count
  // of ends at or before t (empty sequences share their end with the one before).
  const at::Tensor t = at::arange(tk, opts);
  const at::Tensor seq = at::searchsorted(ends, t, /*out_int32=*/false, /*right=*/true);
  DecodePadding pad;
  pad.rows = seq * skv_max + (t - starts.index_select(0, seq));
  const at::Tensor lengths = (ends - starts).unsqueeze(1);
  const at::Tensor j = at::arange(skv_max, opts).unsqueeze(0);
  at::Tensor mask = j < lengths;
  if (window_left >= 0) mask = mask & (j >= lengths - 1 - window_left);
  pad.mask = mask.view({batch, 1, 1, skv_max});
  return pad;
}

}  // namespace opcert::torch_backend
