// cuda.rope.fused: rotary position embedding of q and (optionally) k, out of place (docs/OPS.md
// "rope"), [B, S, H, D] or [T, H, D], split_half or interleaved pairs, partial rotary dim R,
// positions given or implicit (the index s within the sequence; t for [T, H, D]).
// One launch covers q and k: the work is a flat list of units, token-major, then head (q's heads,
// then k's), then unit within the head. A unit is W pairs (16 bytes of T), read, rotated in fp32
// and written with two 16-byte accesses (split_half: at i and i + R/2; interleaved: two
// consecutive), or a 16-byte run of the unrotated tail [R, D) copied as it is; where the layout
// does not allow 16-byte accesses, one pair or one tail element. cos/sin rows come from cache.
#include <opcert/sdk/call_check.h>

#include <climits>
#include <optional>
#include <string>

#include "cuda_check.h"
#include "ops/checked_implementation.h"
#include "ops/cuda_ops.h"
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

struct RopeCall {
  std::optional<sdk::Tensor> q, k, q_out, k_out, cos, sin, positions;
  bool interleaved = false;
  RopeArgs args;
};

std::string quoted(const sdk::Tensor& t) {
  std::string text(1, '\'');
  text.append(t.name()).append(1, '\'');
  return text;
}
std::string shape_of(const sdk::Tensor& t) { return sdk::shape_string({t.shape().begin(), t.shape().end()}); }

/// As cpu.rope.rowwise checks the call.
RopeCall parse(const sdk::OpCall& call, sdk::CallCheck& check) {
  RopeCall r;
  r.q = check.input("q");
  r.k = check.input("k", false);
  r.q_out = check.output("q_out");
  r.k_out = check.output("k_out", false);
  r.cos = check.input("cos");
  r.sin = check.input("sin");
  r.positions = check.input("positions", false);
  r.interleaved = sdk::string_choice(check, call, "style", "split_half", {"split_half", "interleaved"}) == "interleaved";
  if (!r.q || !r.q_out || !r.cos || !r.sin) return r;
  check.dtype(*r.q, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  const int32_t rank = r.q->ndim();
  check.require(rank == 3 || rank == 4, std::string("rope input 'q' must be [B, S, H, D] or [T, H, D], got ")
                                            .append(shape_of(*r.q)));
  check.require(r.k.has_value() == r.k_out.has_value(),
                "output 'k_out' is required exactly when input 'k' is given");
  if (!check.ok()) return r;
  const std::vector<int64_t> q_shape(r.q->shape().begin(), r.q->shape().end());
  check.shape(*r.q_out, q_shape, "the shape of 'q'");
  check.require(r.q_out->dtype() == r.q->dtype(), "rope output 'q_out' must have q's dtype");
  const int64_t d = r.q->dim(-1);
  if (r.k) {
    // k: q's token dims and head dim, its own head count.
    std::vector<int64_t> k_shape = q_shape;
    if (r.k->ndim() == rank) k_shape[rank - 2] = r.k->dim(-2);
    check.shape(*r.k, k_shape, "q's token dims and head dim");
    check.require(r.k->dtype() == r.q->dtype(), "rope input 'k' must have q's dtype");
    check.shape(*r.k_out, {r.k->shape().begin(), r.k->shape().end()}, "the shape of 'k'");
    check.require(r.k_out->dtype() == r.q->dtype(), "rope output 'k_out' must have q's dtype");
  }
  const int64_t rotary = call.get_int("rotary_dim", d);
  check.require(rotary >= 0 && rotary <= d && rotary % 2 == 0,
                "rotary_dim " + std::to_string(rotary) + " must be even and at most the head dim " + std::to_string(d));
  if (!check.ok()) return r;
  for (const auto& table : {r.cos, r.sin}) {
    check.require(table->dtype() == OPCERT_DTYPE_F32, std::string("rope input ").append(quoted(*table)).append(" must be fp32"));
    check.require(table->ndim() == 2 && table->dim(1) == rotary / 2,
                  std::string("rope input ").append(quoted(*table)).append(" has shape ").append(shape_of(*table))
                      .append(", expected [P, ").append(std::to_string(rotary / 2)).append("]"));
  }
  if (!check.ok()) return r;
  check.require(r.cos->dim(0) == r.sin->dim(0), "rope inputs 'cos' and 'sin' have different row counts");
  RopeArgs& a = r.args;
  a.tokens = rank == 4 ? r.q->dim(0) * r.q->dim(1) : r.q->dim(0);
  a.seq_len = rank == 4 ? r.q->dim(1) : r.q->dim(0);
  a.table_rows = r.cos->dim(0);
  if (r.positions) {
    check.require(r.positions->dtype() == OPCERT_DTYPE_I32, "rope input 'positions' must be int32");
    check.shape(*r.positions, {q_shape.begin(), q_shape.end() - 2}, "the token dims of 'q'");
  } else {
    check.require(a.tokens == 0 || a.seq_len <= a.table_rows,
                  "rope without 'positions' needs cos/sin rows for positions 0.." + std::to_string(a.seq_len - 1) +
                      ", got " + std::to_string(a.table_rows));
  }
  // What the kernel's int fields take.
  check.require(d <= INT_MAX / 2 && r.q->dim(-2) <= INT_MAX / 4 && (!r.k || r.k->dim(-2) <= INT_MAX / 4),
                "rope head dim or head count too large");
  if (!check.ok()) return r;
  a.q = r.q->data<const void>();
  a.q_out = r.q_out->data<void>();
  a.k = r.k ? r.k->data<const void>() : nullptr;
  a.k_out = r.k ? r.k_out->data<void>() : nullptr;
  a.cos = r.cos->data<const float>();
  a.sin = r.sin->data<const float>();
  a.positions = r.positions ? r.positions->data<const int32_t>() : nullptr;
  a.hq = static_cast<int>(r.q->dim(-2));
  a.hk = r.k ? static_cast<int>(r.k->dim(-2)) : 0;
  a.d = static_cast<int>(d);
  a.half = static_cast<int>(rotary / 2);
  if (a.seq_len == 0) a.seq_len = 1;  // no token: nothing divides by it
  return r;
}

void run(CudaContext& ctx, const sdk::OpCall& call) {
  sdk::CallCheck check(call, true, OPCERT_DEVICE_CUDA);
  const RopeCall r = parse(call, check);
  check.throw_if_failed();
  if (r.args.tokens == 0 || r.args.d == 0) return;  // empty outputs
  switch (r.q->dtype()) {
    case OPCERT_DTYPE_F32: launch_rope<float>(ctx, r.args, r.interleaved); break;
    case OPCERT_DTYPE_F16: launch_rope<__half>(ctx, r.args, r.interleaved); break;
    default: launch_rope<__nv_bfloat16>(ctx, r.args, r.interleaved); break;
  }
}

}  // namespace

std::vector<sdk::Implementation> rope_implementations(CudaContext& ctx) {
  return {checked_implementation(ctx, "cuda.rope.fused", "rope",
                                 "rotary embedding of q and k in one launch: split_half or interleaved, partial rotary dim, explicit "
                                 "positions, 16-byte accesses, fp32 math",
                                 parse, run)};
}

}  // namespace opcert::cuda
