// Test helper for the CPU backend's gemm, gemm_fp8, gemm_int8 and quantize tests: the shared ABI
// session (backends/abi_test_session.h) on guarded host tensors whose values are stored through
// the harness's codecs (model/scalar_codec, independent of the backend's own).
#pragma once

#include <opcert/backend_abi.h>

#include <cmath>
#include <cstdint>

#include "backends/abi_test_session.h"
#include "model/scalar_codec.h"

extern "C" const opcert_api* opcert_cpu_backend_get_api(void);

namespace opcert::test::cpugemm {

using abi::Attr;
using abi::Outcome;
using abi::Random;

/// Values stored and read through the harness's scalar codecs (round to nearest even;
/// int8/int32 saturate).
struct HarnessCodec {
  static void store(int32_t dtype, double x, uint8_t* p) { opcert::store_as(static_cast<opcert_dtype>(dtype), x, p); }
  static double load(int32_t dtype, const uint8_t* p) { return opcert::load_from(static_cast<opcert_dtype>(dtype), p); }
};

/// A dense host tensor of any dtype with guard bytes, values through the harness's codecs.
using Tensor = abi::CodecTensor<HarnessCodec>;

/// One initialised CPU backend, driven through the opcert_api table.
class Session : public abi::HostSession<Tensor> {
 public:
  Session() : HostSession(opcert_cpu_backend_get_api()) {}
};

/// The allowed error of an fp32-accumulated result rounded to `dtype`: one rounding of the
/// output (u_out |want|) plus fp32 accumulation over `depth` terms whose absolute sum is `mag`.
inline double gemm_tolerance(int32_t dtype, double want, double mag, int64_t depth) {
  const double u_out = opcert::unit_roundoff(static_cast<opcert_dtype>(dtype));
  return 2.0 * u_out * std::fabs(want) + (static_cast<double>(depth) + 2.0) * 0x1p-24 * mag + 1e-30;
}

}  // namespace opcert::test::cpugemm
