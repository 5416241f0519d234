// The host side of the torch backend for tests: the backend is reached only through its C ABI
// entry point (the shared session of backends/abi_test_session.h), operands live in memory the backend allocated (host or CUDA), and values cross as
// doubles encoded to and decoded from each dtype's bits by code independent of the backend.
#pragma once

#include <gtest/gtest.h>
#include <opcert/backend_abi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backends/abi_test_session.h"

extern "C" const opcert_api* opcert_torch_backend_get_api(void);

namespace opcert::torch_test {

// ---- dtype codecs (exact for the values the tests use; fp8 and int8 round to nearest even) ----

inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint16_t to_bf16(double x) {  // round to nearest even from fp32
  const uint32_t u = f32_bits(static_cast<float>(x));
  if (std::isnan(static_cast<float>(x))) return 0x7FC0;
  return static_cast<uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}
inline double from_bf16(uint16_t b) { return bits_f32(static_cast<uint32_t>(b) << 16); }

inline double from_f16(uint16_t h) {
  const int sign = h >> 15, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(m + 1024, e - 25);
  return sign ? -v : v;
}
inline uint16_t to_f16(double x) {  // nearest by search: the tests only use ordinary values
  if (std::isnan(x)) return 0x7E00;
  uint16_t best = 0;
  double best_err = INFINITY;
  for (uint32_t c = 0; c < 0x7C00; ++c) {
    const double err = std::fabs(from_f16(static_cast<uint16_t>(c)) - std::fabs(x));
    if (err < best_err || (err == best_err && (c & 1) == 0)) best = static_cast<uint16_t>(c), best_err = err;
  }
  return static_cast<uint16_t>(best | (std::signbit(x) ? 0x8000 : 0));
}

// fp8 from the format's definition: e4m3fn bias 7 (S.1111.111 is NaN), e5m2 bias 15 (IEEE).
inline double from_fp8(uint8_t c, int32_t dtype) {
  const bool e5 = dtype == OPCERT_DTYPE_F8_E5M2;
  const int mb = e5 ? 2 : 3, bias = e5 ? 15 : 7, emax = e5 ? 31 : 15;
  const int e = (c & 0x7F) >> mb, m = c & ((1 << mb) - 1);
  double v;
  if (e5 && e == emax) v = m ? NAN : INFINITY;
  else if (!e5 && e == emax && m == 7) v = NAN;
  else v = e == 0 ? std::ldexp(m, 1 - bias - mb) : std::ldexp(m + (1 << mb), e - bias - mb);
  return (c & 0x80) ? -v : v;
}
// Nearest finite fp8 code by exhaustive search, ties to the even code.
inline uint8_t to_fp8(double x, int32_t dtype) {
  uint8_t best = 0;
  double best_err = INFINITY;
  for (int c = 0; c < 0x80; ++c) {
    const double v = from_fp8(static_cast<uint8_t>(c), dtype);
    if (!std::isfinite(v)) continue;
    const double err = std::fabs(v - std::fabs(x));
    if (err < best_err || (err == best_err && (c & 1) == 0)) best = static_cast<uint8_t>(c), best_err = err;
  }
  return static_cast<uint8_t>(best | (std::signbit(x) ? 0x80 : 0));
}

using test::abi::Attr;
using test::abi::dtype_bytes;
using test::abi::Outcome;

/// A host-side operand: name, dtype, shape and its bytes.
struct Operand {
  std::string name;
  int32_t dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }

  /// An operand holding values (rounded to the dtype as torch would round them).
  static Operand of(std::string name, int32_t dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
    Operand op{std::move(name), dtype, std::move(shape), {}};
    EXPECT_EQ(static_cast<int64_t>(values.size()), op.numel()) << op.name;
    op.bytes.resize(values.size() * dtype_bytes(dtype));
    for (std::size_t i = 0; i < values.size(); ++i) op.set(i, values[i]);
    return op;
  }
  /// An output operand, filled with a sentinel byte so unwritten elements show.
  static Operand output(std::string name, int32_t dtype, std::vector<int64_t> shape) {
    Operand op{std::move(name), dtype, std::move(shape), {}};
    op.bytes.assign(static_cast<std::size_t>(op.numel()) * dtype_bytes(dtype), 0xA5);
    return op;
  }

  void set(std::size_t i, double v) {
    uint8_t* p = bytes.data() + i * dtype_bytes(dtype);
    switch (dtype) {
      case OPCERT_DTYPE_F32: { const float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
      case OPCERT_DTYPE_BF16: { const uint16_t h = to_bf16(v); std::memcpy(p, &h, 2); break; }
      case OPCERT_DTYPE_F16: { const uint16_t h = to_f16(v); std::memcpy(p, &h, 2); break; }
      case OPCERT_DTYPE_I32: { const int32_t n = static_cast<int32_t>(v); std::memcpy(p, &n, 4); break; }
      case OPCERT_DTYPE_I8: { const int8_t n = static_cast<int8_t>(v); std::memcpy(p, &n, 1); break; }
      default: *p = to_fp8(v, dtype);
    }
  }
  double at(std::size_t i) const {
    const uint8_t* p = bytes.data() + i * dtype_bytes(dtype);
    switch (dtype) {
      case OPCERT_DTYPE_F32: { float f; std::memcpy(&f, p, 4); return f; }
      case OPCERT_DTYPE_BF16: { uint16_t h; std::memcpy(&h, p, 2); return from_bf16(h); }
      case OPCERT_DTYPE_F16: { uint16_t h; std::memcpy(&h, p, 2); return from_f16(h); }
      case OPCERT_DTYPE_I32: { int32_t n; std::memcpy(&n, p, 4); return n; }
      case OPCERT_DTYPE_I8: { int8_t n; std::memcpy(&n, p, 1); return n; }
      default: return from_fp8(*p, dtype);
    }
  }
  /// Every element, decoded (rounded inputs: the values the backend actually sees).
  std::vector<double> values() const {
    std::vector<double> v(static_cast<std::size_t>(numel()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = at(i);
    return v;
  }
};

/// One initialised torch backend reached through its C ABI (the shared session), with operands
/// copied into memory the backend allocates on its device.
class TorchHost {
 public:
  /// A host of ABI 1.`host_minor` (see test::abi::Session).
  explicit TorchHost(int32_t host_minor = OPCERT_ABI_VERSION_MINOR) : session_(opcert_torch_backend_get_api(), host_minor) {
    opcert_device_info_args info{sizeof(info), backend(), 0, {}, nullptr, 0, 0};
    EXPECT_EQ(api()->device_info(&info), nullptr);
    device_ = info.device;
  }

  const opcert_api* api() const { return session_.api(); }
  opcert_backend* backend() const { return session_.backend(); }

  /// Runs `key` (and publishes its outputs, as the host does, unless publishing is off); outputs
  /// are read back into `outputs` on success.
  Outcome run(const std::string& key, const std::vector<Operand>& inputs, std::vector<Operand>& outputs,
              const std::vector<Attr>& attrs = {}) {
    return call(key, inputs, outputs, attrs, false);
  }
  /// Off: run() reads the outputs right after run_op, without publish_outputs.
  void set_publishing(bool on) { publish_ = on; }
  /// Asks query_op about the call (no data needed, but buffers are passed anyway).
  Outcome query(const std::string& key, const std::vector<Operand>& inputs, std::vector<Operand> outputs,
                const std::vector<Attr>& attrs = {}) {
    return call(key, inputs, outputs, attrs, true);
  }

 private:
  void expect_ok(opcert_error* e) { EXPECT_EQ(session_.take(e).code, OPCERT_ERROR_OK); }

  void* to_device(const Operand& op) {
    opcert_memory_allocate_args alloc{sizeof(alloc), backend(), device_, op.bytes.size(), 0, nullptr};
    expect_ok(api()->memory_allocate(&alloc));
    opcert_memory_copy_args copy{sizeof(copy), backend(), device_, OPCERT_COPY_HOST_TO_DEVICE, alloc.data, op.bytes.data(),
                                 op.bytes.size()};
    expect_ok(api()->memory_copy(&copy));
    return alloc.data;
  }

  Outcome call(const std::string& key, const std::vector<Operand>& inputs, std::vector<Operand>& outputs,
               const std::vector<Attr>& attrs, bool query_only) {
    std::vector<void*> buffers;
    auto describe = [&](const std::vector<Operand>& ops) {
      std::vector<opcert_tensor> tensors;
      for (const Operand& op : ops) {
        buffers.push_back(to_device(op));
        tensors.push_back(opcert_tensor{sizeof(opcert_tensor), op.name.c_str(), buffers.back(), device_, op.dtype,
                                        static_cast<int32_t>(op.shape.size()), op.shape.data(), nullptr, 0});
      }
      return tensors;
    };
    std::vector<opcert_tensor> in = describe(inputs);
    const test::abi::OpCall c(key, std::move(in), describe(outputs), attrs);
    Outcome result;
    if (query_only) {
      result = session_.query(c.call);
    } else {
      result = session_.run(c.call, publish_);
      opcert_synchronize_args sync{sizeof(sync), backend(), device_};
      expect_ok(api()->synchronize(&sync));
      for (std::size_t i = 0; result.code == OPCERT_ERROR_OK && i < outputs.size(); ++i) {
        opcert_memory_copy_args copy{sizeof(copy), backend(), device_, OPCERT_COPY_DEVICE_TO_HOST, outputs[i].bytes.data(),
                                     buffers[inputs.size() + i], outputs[i].bytes.size()};
        expect_ok(api()->memory_copy(&copy));
      }
    }
    for (void* b : buffers) {
      opcert_memory_free_args f{sizeof(f), backend(), device_, b};
      expect_ok(api()->memory_free(&f));
    }
    return result;
  }

  test::abi::Session session_;
  opcert_device device_{OPCERT_DEVICE_CPU, 0};
  bool publish_ = true;
};

/// Deterministic pseudo-random values in [lo, hi] (an LCG: the tests need variety, not quality).
inline std::vector<double> pseudo_random(std::size_t n, double lo, double hi, uint32_t seed) {
  std::vector<double> v(n);
  uint64_t s = seed * 2654435761u + 1;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = lo + (hi - lo) * static_cast<double>(s >> 11) / static_cast<double>(1ull << 53);
  }
  return v;
}

/// Expects every got[i] within abs_tol + rel_tol·|want[i]| of want[i]; NaN must meet NaN, ±inf the same ±inf.
inline void expect_close(const std::vector<double>& got, const std::vector<double>& want, double rel_tol, double abs_tol,
                         const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]) || std::isinf(want[i])) {
      EXPECT_TRUE(std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i]) << what << "[" << i << "] got " << got[i]
                                                                                 << " want " << want[i];
      continue;
    }
    EXPECT_NEAR(got[i], want[i], abs_tol + rel_tol * std::fabs(want[i])) << what << "[" << i << "]";
  }
}

// Unit roundoffs of the output dtypes.
constexpr double kBf16Eps = 1.0 / 256, kF16Eps = 1.0 / 2048, kF32Eps = 1.0 / 8388608;

}  // namespace opcert::torch_test
