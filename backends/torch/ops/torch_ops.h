// The torch backend's implementations, one function per op family; torch_backend.cpp adds them
// all. Keys are "torch.<op>.native": each op runs through LibTorch in its operands' own dtype,
// the way a framework user would call it (docs/OPS.md is the contract they meet).
#pragma once

#include <opcert/sdk/backend.h>

#include <vector>

namespace opcert::torch_backend {

std::vector<sdk::Implementation> gemm_implementations();       // gemm fp32/fp16/bf16
std::vector<sdk::Implementation> gemm_fp8_implementations();   // gemm_fp8
std::vector<sdk::Implementation> gemm_int8_implementations();  // gemm_int8
std::vector<sdk::Implementation> quantize_implementations();   // quantize
std::vector<sdk::Implementation> attention_implementations();  // attention
std::vector<sdk::Implementation> norm_implementations();       // rms_norm, layer_norm
std::vector<sdk::Implementation> rope_implementations();       // rope
std::vector<sdk::Implementation> softmax_implementations();    // softmax

}  // namespace opcert::torch_backend
