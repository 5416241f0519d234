#include "model/op_catalogue.h"

#include <array>

namespace opcert {
namespace {

constexpr std::array<OpEntry, 14> kOps{{
    {"gemm", OpFamily::kCompute, "C = A B^T (+ bias); fp32/fp16/bf16, fp32 accumulate"},
    {"gemm_fp8", OpFamily::kCompute, "scaled fp8 GEMM (e4m3/e5m2; per-tensor, per-token x per-channel, block scales)"},
    {"gemm_int8", OpFamily::kCompute, "int8 GEMM, int32 exact or dequantized output"},
    {"quantize", OpFamily::kCompute, "dynamic per-token or per-tensor quantization to int8/fp8"},
    {"attention", OpFamily::kCompute, "scaled dot-product attention: BSHD or varlen, causal, GQA/MQA, window"},
    {"rms_norm", OpFamily::kCompute, "RMSNorm with optional weight and fused residual add"},
    {"layer_norm", OpFamily::kCompute, "LayerNorm with optional weight/bias and fused residual add"},
    {"rope", OpFamily::kCompute, "rotary position embedding, interleaved or split-half, partial rotary dim"},
    {"softmax", OpFamily::kCompute, "softmax over the last dimension, fp32 math"},
    {"all_reduce", OpFamily::kCollective, "sum/max/min/avg across ranks"},
    {"all_gather", OpFamily::kCollective, "concatenate every rank's buffer"},
    {"reduce_scatter", OpFamily::kCollective, "reduce, then each rank keeps its slice"},
    {"broadcast", OpFamily::kCollective, "root's buffer to every rank"},
    {"all_to_all", OpFamily::kCollective, "each rank sends a slice to every rank"},
}};

}  // namespace

std::span<const OpEntry> op_catalogue() { return kOps; }

const OpEntry* find_op(std::string_view name) {
  for (const auto& op : kOps)
    if (op.name == name) return &op;
  return nullptr;
}

}  // namespace opcert
