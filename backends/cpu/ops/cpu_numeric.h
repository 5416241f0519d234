// Scalar conversions of the CPU backend between fp32 and the storage dtypes (docs/OPS.md,
// conventions): the SDK's public codecs, and runs of them.
//
// Portable code only: never include this from a translation unit compiled with ISA flags
// (gemm_kernels_avx512.cpp), or the linker may keep that unit's copy of an inline function.
#pragma once

#include <opcert/backend_abi.h>
#include <opcert/sdk/number_codecs.h>
#include <opcert/sdk/op_call.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

namespace opcert::cpu {

// The codecs are the SDK's (opcert/sdk/number_codecs.h), as every plugin's may be.
using ::opcert::sdk::bf16_to_f32;
using ::opcert::sdk::e4m3_to_f32;
using ::opcert::sdk::e5m2_to_f32;
using ::opcert::sdk::f32_to_bf16;
using ::opcert::sdk::f32_to_e4m3;
using ::opcert::sdk::f32_to_e5m2;
using ::opcert::sdk::f32_to_fp16;
using ::opcert::sdk::fp16_to_f32;
using ::opcert::sdk::load_as_f32;
using ::opcert::sdk::store_f32_as;

using ::opcert::sdk::dtype_name;

}  // namespace opcert::cpu

namespace opcert::cpu {

/// Rounds n fp32 values once into `dtype` (fp32, fp16, bf16, fp8) and stores them at element
/// `offset` of `dst`.
void store_f32_run(int32_t dtype, void* dst, int64_t offset, const float* values, int64_t n);

/// Loads n elements of `dtype` (fp32, fp16, bf16, fp8) from element `offset` of `src` as fp32.
void load_f32_run(int32_t dtype, const void* src, int64_t offset, float* values, int64_t n);

}  // namespace opcert::cpu
