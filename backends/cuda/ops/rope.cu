// cuda.rope.fused: rotary position embedding of q and (optionally) k, out of place (docs/OPS.md
// "rope"), [B, S, H, D] or [T, H, D], split_half or interleaved pairs, partial rotary dim R,
// positions given or implicit (the index s within the sequence; t for [T, H, D]).
// One launch covers q and k: the work is a flat list of units, token-major, then head (q's heads,
// then k's), then unit within the head. A unit is W pairs (16 bytes of T), read, rotated in fp32
// and written with two 16-byte accesses (split_half: at i and i + R/2; interleaved: two
// consecutive), or a 16-byte run of the unrotated tail [R, D) copied as it is; where the layout
// does not allow 16-byte accesses, one pair or one tail element. cos/sin rows come from cache.
// Operands: the SDK's parse_rope; the one limit beyond the contract is the kernel's int fields.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/rope.h>

#include <climits>

#include "cuda_check.h"
#include "cuda_implementations.h"
#include "ops/launch_common.cuh"
#include "ops/vector_io.cuh"

namespace opcert::cuda {
namespace {

constexpr int kThreads = 256;

struct RopeArgs {
  const void* q = nullptr;
  const void* k = nullptr;  // null: no k
  void* q_out = nullptr;
  void* k_out = nullptr;
  const float* cos = nullptr;  // [P, half]
  const float* sin = nullptr;
  const int32_t* positions = nullptr;  // [tokens] or null
  int64_t tokens = 0;     // B*S or T
  int64_t seq_len = 1;    // S or T: the implicit position of token t is t % seq_len
  int64_t table_rows = 0; // P
  int hq = 0, hk = 0;     // heads of q and of k (0 without k)
  int d = 0;              // head dim D
  int half = 0;           // R/2
  int rot_units = 0;      // rotating units per head
  int copy_units = 0;     // copying units per head ([R, D) in runs of W)
};


template <class T, int W, bool kInterleaved>
__device__ __forceinline__ void rope_unit(const RopeArgs& a, int64_t t, int head, int u) {
  const bool is_q = head < a.hq;
  const int64_t offset = is_q ? (t * a.hq + head) * a.d : (t * a.hk + (head - a.hq)) * a.d;
  const T* __restrict__ x = static_cast<const T*>(is_q ? a.q : a.k) + offset;
  T* __restrict__ y = static_cast<T*>(is_q ? a.q_out : a.k_out) + offset;

  if (u >= a.rot_units) {  // the tail [R, D), unchanged
    const int e = 2 * a.half + (u - a.rot_units) * W;
    vio::copy<T, W>(x + e, y + e);
    return;
  }
  const int j = u * W;  // first pair of the unit
  const int64_t p = a.positions != nullptr ? int64_t{a.positions[t]} : t % a.seq_len;
  float c[W], s[W];
  if (p >= 0 && p < a.table_rows) {
    vio::load_f32<W>(a.cos + p * a.half + j, c);
    vio::load_f32<W>(a.sin + p * a.half + j, s);
  } else {
    // A position outside [0, P) breaks the contract; it cannot be thrown from here, so the
    // rotated elements say so as NaN (and nothing outside the tables is read).
#pragma unroll
    for (int i = 0; i < W; ++i) c[i] = s[i] = __builtin_nanf("");
  }
  if constexpr (kInterleaved) {
    // The unit's 2W elements: two 16-byte accesses, or one pair of single elements.
    constexpr int kSpan = W == 1 ? 2 : W;
    constexpr int kAccesses = 2 * W / kSpan;
    float v[kAccesses][kSpan];
#pragma unroll
    for (int m = 0; m < kAccesses; ++m) vio::load<T, kSpan>(x + 2 * j + m * kSpan, v[m]);
#pragma unroll
    for (int m = 0; m < kAccesses; ++m)
#pragma unroll
      for (int i = 0; i < kSpan / 2; ++i) {
        const int pair = m * (kSpan / 2) + i;
        const float x1 = v[m][2 * i], x2 = v[m][2 * i + 1];
        v[m][2 * i] = x1 * c[pair] - x2 * s[pair];
        v[m][2 * i + 1] = x2 * c[pair] + x1 * s[pair];
      }
#pragma unroll
    for (int m = 0; m < kAccesses; ++m) vio::store<T, kSpan>(y + 2 * j + m * kSpan, v[m]);
  } else {
    float v1[W], v2[W];
    vio::load<T, W>(x + j, v1);
    vio::load<T, W>(x + j + a.half, v2);
#pragma unroll
    for (int i = 0; i < W; ++i) {
      const float x1 = v1[i], x2 = v2[i];
      v1[i] = x1 * c[i] - x2 * s[i];
      v2[i] = x2 * c[i] + x1 * s[i];
    }
    vio::store<T, W>(y + j, v1);
    vio::store<T, W>(y + j + a.half, v2);
  }
}

/// Grid-stride over the flat unit list; 32-bit index arithmetic when the list allows it
/// (a 64-bit division costs several times a 32-bit one).
template <class T, int W, bool kInterleaved, class Index>
__global__ void __launch_bounds__(kThreads) rope_kernel(RopeArgs a) {
  const Index per_head = static_cast<Index>(a.rot_units + a.copy_units);
  const Index per_token = per_head * static_cast<Index>(a.hq + a.hk);
  const Index total = static_cast<Index>(a.tokens) * per_token;
  const Index stride = static_cast<Index>(gridDim.x) * kThreads;
  for (Index i = static_cast<Index>(blockIdx.x) * kThreads + threadIdx.x; i < total; i += stride) {
    const Index t = i / per_token;
    const Index r = i - t * per_token;
    const Index head = r / per_head;
    rope_unit<T, W, kInterleaved>(a, static_cast<int64_t>(t), static_cast<int>(head),
                                  static_cast<int>(r - head * per_head));
  }
}

template <class T, int W, bool kInterleaved>
void launch_rope_shape(CudaContext& ctx, RopeArgs a) {
  a.rot_units = a.half / W;
  a.copy_units = (a.d - 2 * a.half) / W;
  const int64_t total = a.tokens * (a.hq + a.hk) * int64_t{a.rot_units + a.copy_units};
  if (total == 0) return;
  auto launch = [&](auto* kernel) {
    const unsigned grid = resident_grid(ctx, kernel, kThreads, 0, total, kThreads);
    kernel<<<grid, kThreads, 0, ctx.stream>>>(a);
    OPCERT_CUDA_CHECK_LAUNCH("rope");
  };
  // The loop index reaches total + stride (stride: at most the resident threads, far below 2^30),
  // which must fit the index type too.
  if (total < (int64_t{1} << 30))
    launch(rope_kernel<T, W, kInterleaved, int32_t>);
  else
    launch(rope_kernel<T, W, kInterleaved, int64_t>);
}

template <class T>
void launch_rope(CudaContext& ctx, const RopeArgs& a, bool interleaved) {
  constexpr int V = vio::kVec<T>;
  // 16-byte units need whole accesses in every head (D), in each half of the rotated part (R/2:
  // then the tail [R, D) is whole accesses too, and so are the cos/sin slices), and aligned
  // tensors and tables.
  const bool aligned = aligned16({a.q, a.k, a.q_out, a.k_out, a.cos, a.sin});
  const bool vec = aligned && a.d % V == 0 && a.half % V == 0;
  if (interleaved) {
    if (vec) launch_rope_shape<T, V, true>(ctx, a);
    else launch_rope_shape<T, 1, true>(ctx, a);
  } else {
    if (vec) launch_rope_shape<T, V, false>(ctx, a);
    else launch_rope_shape<T, 1, false>(ctx, a);
  }
}

/// What the kernel's int fields take.
sdk::Support int_fields_fit(const sdk::RopeOperands& r) {
  if (r.head_dim <= INT_MAX / 2 && r.hq <= INT_MAX / 4 && r.hk <= INT_MAX / 4) return sdk::Support::yes();
  return sdk::Support::no("rope head dim or head count too large");
}

/// The kernel's view of operands that parsed (with data).
RopeArgs args_of(const sdk::RopeOperands& r) {
  RopeArgs a;
  a.tokens = r.tokens;
  a.seq_len = r.seq_len == 0 ? 1 : r.seq_len;  // no token: nothing divides by it
  a.table_rows = r.table_rows;
  a.q = r.q->data<const void>();
  a.q_out = r.q_out->data<void>();
  a.k = r.k ? r.k->data<const void>() : nullptr;
  a.k_out = r.k ? r.k_out->data<void>() : nullptr;
  a.cos = r.cos->data<const float>();
  a.sin = r.sin->data<const float>();
  a.positions = r.positions ? r.positions->data<const int32_t>() : nullptr;
  a.hq = static_cast<int>(r.hq);
  a.hk = static_cast<int>(r.hk);
  a.d = static_cast<int>(r.head_dim);
  a.half = static_cast<int>(r.half());
  return a;
}

void run(CudaContext& ctx, const sdk::RopeOperands& r) {
  const RopeArgs a = args_of(r);
  if (a.tokens == 0 || a.d == 0) return;  // empty outputs
  const bool interleaved = r.style == sdk::RopeStyle::kInterleaved;
  switch (r.dtype) {
    case OPCERT_DTYPE_F32: launch_rope<float>(ctx, a, interleaved); break;
    case OPCERT_DTYPE_F16: launch_rope<__half>(ctx, a, interleaved); break;
    default: launch_rope<__nv_bfloat16>(ctx, a, interleaved); break;
  }
}

std::vector<sdk::Implementation> rope_implementations(CudaContext& ctx) {
  return {sdk::checked_implementation(
      {"cuda.rope.fused", "rope",
       "rotary embedding of q and k in one launch: split_half or interleaved, partial rotary dim, explicit "
       "positions, 16-byte accesses, fp32 math",
       OPCERT_DEVICE_CUDA},
      sdk::parse_rope, [&ctx](const sdk::RopeOperands& r) { run(ctx, r); }, int_fields_fit)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CudaImplementations, "rope", rope_implementations)

}  // namespace opcert::cuda
