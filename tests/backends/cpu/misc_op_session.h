// Test helper for the CPU backend's softmax, norm, rope and attention tests: host tensors with
// guard bytes, test-side dtype conversions (independent of the backend's), and a session that
// calls the backend through its C ABI table only.
#pragma once

#include <opcert/backend_abi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" const opcert_api* opcert_cpu_backend_get_api(void);

namespace opcert::test::cpumisc {

// ---- dtype conversions written from the IEEE / bfloat16 definitions ----------------------

inline double decode_fp16(uint16_t b) {
  const int sign = (b >> 15) ? -1 : 1;
  const int e = (b >> 10) & 31;
  const int m = b & 1023;
  if (e == 31) return m ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  if (e == 0) return sign * std::ldexp(m, -24);
  return sign * std::ldexp(1024 + m, e - 25);
}

inline double decode_bf16(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Rounds |x| (finite) to nearest even with `mant` significand bits (implicit one included),
/// minimum normal exponent `emin`; returns (biased exponent field, stored mantissa).
inline void round_binary(double a, int mant, int emin, int& exp_field, uint32_t& stored) {
  int e = emin;
  if (a >= std::ldexp(1.0, emin)) {
    int fe;
    std::frexp(a, &fe);
    e = fe - 1;
  }
  double m = std::nearbyint(std::ldexp(a, mant - 1 - e));  // significand in units of the ulp
  if (m >= std::ldexp(1.0, mant)) {
    m /= 2;
    ++e;
  }
  const bool normal = m >= std::ldexp(1.0, mant - 1);
  exp_field = normal ? e - emin + 1 : 0;
  stored = static_cast<uint32_t>(m) & ((1u << (mant - 1)) - 1);
}

inline uint16_t encode_fp16(double x) {
  if (std::isnan(x)) return 0x7e00;
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a >= 65520.0) return sign | 0x7c00;
  int ef;
  uint32_t st;
  round_binary(a, 11, -14, ef, st);
  return static_cast<uint16_t>(sign | (ef << 10) | st);
}

inline uint16_t encode_bf16(double x) {
  if (std::isnan(x)) return 0x7fc0;
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a >= std::ldexp(255.0 + 0.5, 120)) return sign | 0x7f80;  // halfway above the largest bf16
  int ef;
  uint32_t st;
  round_binary(a, 8, -126, ef, st);
  return static_cast<uint16_t>(sign | (ef << 7) | st);
}

inline const char* dtype_label(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F32: return "fp32";
    case OPCERT_DTYPE_F16: return "fp16";
    case OPCERT_DTYPE_BF16: return "bf16";
    case OPCERT_DTYPE_I32: return "int32";
    default: return "other";
  }
}

/// Distance between adjacent values of dtype near |x|.
inline double ulp_of(int32_t dtype, double x) {
  const int mant = dtype == OPCERT_DTYPE_F32 ? 24 : dtype == OPCERT_DTYPE_F16 ? 11 : 8;
  const int emin = dtype == OPCERT_DTYPE_F32 ? -126 : dtype == OPCERT_DTYPE_F16 ? -14 : -126;
  int fe = emin + 1;
  if (std::fabs(x) >= std::ldexp(1.0, emin)) std::frexp(std::fabs(x), &fe);
  return std::ldexp(1.0, fe - mant);
}

// ---- host tensors --------------------------------------------------------------------------

inline std::size_t element_bytes(int32_t dtype) {
  return dtype == OPCERT_DTYPE_F16 || dtype == OPCERT_DTYPE_BF16 ? 2 : dtype == OPCERT_DTYPE_I8 ? 1 : 4;
}

/// A dense tensor in host memory with 64 guard bytes on each side.
struct Tensor {
  static constexpr std::size_t kGuard = 64;
  static constexpr uint8_t kGuardByte = 0xA5;

  std::string name;
  int32_t dtype = OPCERT_DTYPE_F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> storage;

  Tensor() = default;
  Tensor(std::string n, int32_t dt, std::vector<int64_t> sh) : name(std::move(n)), dtype(dt), shape(std::move(sh)) {
    storage.assign(2 * kGuard + numel() * element_bytes(dtype), kGuardByte);
  }

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  uint8_t* data() { return storage.data() + kGuard; }
  const uint8_t* data() const { return storage.data() + kGuard; }

  /// Stores x rounded to the dtype (int32: truncated).
  void set(int64_t i, double x) {
    uint8_t* p = data() + i * element_bytes(dtype);
    if (dtype == OPCERT_DTYPE_F32) {
      const float f = static_cast<float>(x);
      std::memcpy(p, &f, 4);
    } else if (dtype == OPCERT_DTYPE_I32) {
      const auto v = static_cast<int32_t>(x);
      std::memcpy(p, &v, 4);
    } else {
      const uint16_t b = dtype == OPCERT_DTYPE_F16 ? encode_fp16(x) : encode_bf16(x);
      std::memcpy(p, &b, 2);
    }
  }
  double get(int64_t i) const {
    const uint8_t* p = data() + i * element_bytes(dtype);
    if (dtype == OPCERT_DTYPE_F32) {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    if (dtype == OPCERT_DTYPE_I32) {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    uint16_t b;
    std::memcpy(&b, p, 2);
    return dtype == OPCERT_DTYPE_F16 ? decode_fp16(b) : decode_bf16(b);
  }
  uint16_t bits16(int64_t i) const {
    uint16_t b;
    std::memcpy(&b, data() + i * 2, 2);
    return b;
  }
  std::vector<double> values() const {
    std::vector<double> v(static_cast<std::size_t>(numel()));
    for (int64_t i = 0; i < numel(); ++i) v[i] = get(i);
    return v;
  }
  bool guards_intact() const {
    for (std::size_t i = 0; i < kGuard; ++i)
      if (storage[i] != kGuardByte || storage[storage.size() - 1 - i] != kGuardByte) return false;
    return true;
  }
};

/// Deterministic uniform values in [lo, hi) (splitmix64).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  double uniform(double lo, double hi) {
    state_ += 0x9e3779b97f4a7c15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return lo + (hi - lo) * static_cast<double>(z >> 11) * 0x1p-53;
  }
  /// Fills t with uniform values rounded to its dtype.
  void fill(Tensor& t, double lo, double hi) {
    for (int64_t i = 0; i < t.numel(); ++i) t.set(i, uniform(lo, hi));
  }

 private:
  uint64_t state_;
};

// ---- attributes and calls through the C ABI ------------------------------------------------

struct Attr {
  std::string name;
  int32_t kind = OPCERT_ATTR_INT;
  int64_t i = 0;
  double f = 0.0;
  std::string s;
  static Attr integer(std::string n, int64_t v) { return {std::move(n), OPCERT_ATTR_INT, v, 0.0, {}}; }
  static Attr real(std::string n, double v) { return {std::move(n), OPCERT_ATTR_FLOAT, 0, v, {}}; }
  static Attr text(std::string n, std::string v) { return {std::move(n), OPCERT_ATTR_STRING, 0, 0.0, std::move(v)}; }
};

struct Outcome {
  int32_t code = OPCERT_ERROR_OK;  // OPCERT_ERROR_OK on success
  std::string message;
  bool supported = true;  // query only
};

/// One initialised CPU backend, driven through the opcert_api table.
class Session {
 public:
  Session() : api_(opcert_cpu_backend_get_api()) {
    opcert_initialize_args a{sizeof(a), OPCERT_ABI_VERSION_MAJOR, OPCERT_ABI_VERSION_MINOR, nullptr};
    if (take(api_->initialize(&a)).code != OPCERT_ERROR_OK) throw std::runtime_error("cpu backend initialize failed");
    backend_ = a.backend;
  }
  ~Session() {
    opcert_finalize_args a{sizeof(a), backend_};
    take(api_->finalize(&a));
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Outcome run(const std::string& key, const std::vector<Tensor*>& inputs, const std::vector<Tensor*>& outputs,
              const std::vector<Attr>& attrs = {}) {
    Call c(key, inputs, outputs, attrs);
    opcert_run_op_args a{sizeof(a), backend_, &c.call, nullptr};
    return take(api_->run_op(&a));
  }

  Outcome query(const std::string& key, const std::vector<Tensor*>& inputs, const std::vector<Tensor*>& outputs,
                const std::vector<Attr>& attrs = {}) {
    Call c(key, inputs, outputs, attrs);
    opcert_query_op_args a{sizeof(a), backend_, &c.call, 0, nullptr};
    Outcome out = take(api_->query_op(&a));
    if (out.code == OPCERT_ERROR_OK) {
      out.supported = a.supported != 0;
      if (a.reason != nullptr) out.message = a.reason;
    }
    return out;
  }

 private:
  /// The ABI structs of one call; they point into the test's tensors and attributes.
  struct Call {
    std::vector<opcert_tensor> in, out;
    std::vector<opcert_attr> attr;
    opcert_op_call call{};
    Call(const std::string& key, const std::vector<Tensor*>& inputs, const std::vector<Tensor*>& outputs,
         const std::vector<Attr>& attrs) {
      for (Tensor* t : inputs) in.push_back(view(*t));
      for (Tensor* t : outputs) out.push_back(view(*t));
      for (const Attr& x : attrs)
        attr.push_back(opcert_attr{sizeof(opcert_attr), x.name.c_str(), x.kind, x.i, x.f, x.s.c_str(), nullptr, 0});
      call = opcert_op_call{sizeof(opcert_op_call), key.c_str(), in.data(), static_cast<int32_t>(in.size()),
                            out.data(), static_cast<int32_t>(out.size()), attr.data(), static_cast<int32_t>(attr.size())};
    }
    static opcert_tensor view(Tensor& t) {
      return opcert_tensor{sizeof(opcert_tensor), t.name.c_str(), t.data(), {OPCERT_DEVICE_CPU, 0}, t.dtype,
                           static_cast<int32_t>(t.shape.size()), t.shape.data(), nullptr, 0};
    }
  };

  Outcome take(opcert_error* e) {
    Outcome out;
    if (e == nullptr) return out;
    opcert_error_code_args c{sizeof(c), e, 0};
    api_->error_code(&c);
    opcert_error_message_args m{sizeof(m), e, nullptr};
    api_->error_message(&m);
    out.code = c.code;
    out.message = m.message ? m.message : "";
    opcert_error_destroy_args d{sizeof(d), e};
    api_->error_destroy(&d);
    return out;
  }

  const opcert_api* api_;
  opcert_backend* backend_ = nullptr;
};

/// |got - want| within `ulps` units in the last place of the dtype at want, plus `rel` * mag
/// (the fp32-math allowance, scaled by the magnitude of the terms that made the value).
/// NaN must meet NaN and an infinity the same infinity.
inline bool close(int32_t dtype, double got, double want, double mag, double ulps = 1.0, double rel = 1e-5) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (!std::isfinite(got)) return false;
  return std::fabs(got - want) <= ulps * ulp_of(dtype, want) + rel * mag;
}

inline const std::vector<int32_t>& float_dtypes() {
  static const std::vector<int32_t> all{OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16};
  return all;
}

}  // namespace opcert::test::cpumisc
