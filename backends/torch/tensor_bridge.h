// The bridge between opcert's tensor views and ATen tensors: wrap borrowed memory without copying,
// write results into borrowed outputs, and pick the dtype torch computes in.
#pragma once

#include <ATen/ATen.h>
#include <opcert/sdk/op_call.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace opcert::torch_backend {

/// The ATen dtype holding an opcert dtype's bytes. fp8 maps to kByte: decoding is explicit
/// (see fp8_codec.h) because LibTorch 1.13 has no fp8 dtype.
at::ScalarType scalar_type(int32_t opcert_dtype);

/// The CUDA devices torch sees (0 on a machine without one). The backend lists them, and only
/// them, when there is one; else its one device is the host.
std::size_t cuda_device_count();

/// The memory every operand of this backend's ops must be in (what the operand parsers check):
/// CUDA device memory when torch sees a GPU, else host memory.
int32_t operand_device_type();

/// An ATen view of the operand's memory (no copy), on the device the operand names.
at::Tensor wrap(const sdk::Tensor& t);

/// wrap() of an optional operand (a parser's std::optional<sdk::Tensor>).
c10::optional<at::Tensor> wrap(const std::optional<sdk::Tensor>& t);

/// Gives `value` (the output's shape and dtype) to the named output: kept pending until
/// publish_outputs when the host publishes (ABI 1.1, pending_outputs.h), else copied at once.
void write_output(const sdk::Tensor& out, const at::Tensor& value);

/// The dtype torch computes an op on `dtype` in on `device`: the dtype itself, except where this
/// LibTorch has no kernel for it (fp16 on the CPU before 2.1), where it is fp32.
at::ScalarType compute_dtype(at::ScalarType dtype, const at::Device& device);

/// x converted to compute_dtype(x's dtype, x's device).
at::Tensor to_compute_dtype(const at::Tensor& x);

}  // namespace opcert::torch_backend
