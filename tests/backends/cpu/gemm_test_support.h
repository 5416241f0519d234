// Test helper for the CPU backend's gemm, gemm_fp8, gemm_int8 and quantize tests: host tensors
// of any dtype with guard bytes, values stored through the harness's codecs (model/scalar_codec,
// independent of the backend's own), and a session calling the backend through its C ABI table.
#pragma once

#include <opcert/backend_abi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/scalar_codec.h"

extern "C" const opcert_api* opcert_cpu_backend_get_api(void);

namespace opcert::test::cpugemm {

inline std::size_t element_bytes(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: return 8;
    case OPCERT_DTYPE_F32: case OPCERT_DTYPE_I32: return 4;
    case OPCERT_DTYPE_F16: case OPCERT_DTYPE_BF16: return 2;
    default: return 1;
  }
}

/// A dense host tensor with 64 guard bytes on each side.
struct Tensor {
  static constexpr std::size_t kGuard = 64;
  static constexpr uint8_t kGuardByte = 0xA5;

  std::string name;
  int32_t dtype = OPCERT_DTYPE_F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> storage;

  Tensor() = default;
  Tensor(std::string n, int32_t dt, std::vector<int64_t> sh) : name(std::move(n)), dtype(dt), shape(std::move(sh)) {
    storage.assign(2 * kGuard + static_cast<std::size_t>(numel()) * element_bytes(dtype), kGuardByte);
  }

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  uint8_t* data() { return storage.data() + kGuard; }
  const uint8_t* data() const { return storage.data() + kGuard; }

  /// Stores x rounded to the dtype (round to nearest even; int8/int32 saturate).
  void set(int64_t i, double x) { opcert::store_as(static_cast<opcert_dtype>(dtype), x, data() + i * element_bytes(dtype)); }
  double get(int64_t i) const { return opcert::load_from(static_cast<opcert_dtype>(dtype), data() + i * element_bytes(dtype)); }
  /// The raw stored bits of element i (up to 4 bytes).
  uint32_t bits(int64_t i) const {
    uint32_t b = 0;
    std::memcpy(&b, data() + i * element_bytes(dtype), element_bytes(dtype));
    return b;
  }
  bool guards_intact() const {
    for (std::size_t i = 0; i < kGuard; ++i)
      if (storage[i] != kGuardByte || storage[storage.size() - 1 - i] != kGuardByte) return false;
    return true;
  }
};

/// Deterministic values (splitmix64).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1p-53; }
  int64_t integer(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }
  void fill(Tensor& t, double lo, double hi) {
    for (int64_t i = 0; i < t.numel(); ++i) t.set(i, uniform(lo, hi));
  }
  void fill_integers(Tensor& t, int64_t lo, int64_t hi) {
    for (int64_t i = 0; i < t.numel(); ++i) t.set(i, static_cast<double>(integer(lo, hi)));
  }

 private:
  uint64_t state_;
};

struct Attr {
  std::string name;
  int32_t kind = OPCERT_ATTR_INT;
  int64_t i = 0;
  std::string s;
  static Attr integer(std::string n, int64_t v) { return {std::move(n), OPCERT_ATTR_INT, v, {}}; }
  static Attr text(std::string n, std::string v) { return {std::move(n), OPCERT_ATTR_STRING, 0, std::move(v)}; }
};

struct Outcome {
  int32_t code = OPCERT_ERROR_OK;
  std::string message;
  bool supported = true;  // query only
};

/// The ABI structs of one call, pointing into the test's tensors and attributes.
struct Call {
  std::vector<opcert_tensor> in, out;
  std::vector<opcert_attr> attr;
  opcert_op_call call{};
  Call(const std::string& key, const std::vector<Tensor*>& inputs, const std::vector<Tensor*>& outputs,
       const std::vector<Attr>& attrs) {
    for (Tensor* t : inputs) in.push_back(view(*t));
    for (Tensor* t : outputs) out.push_back(view(*t));
    for (const Attr& x : attrs)
      attr.push_back(opcert_attr{sizeof(opcert_attr), x.name.c_str(), x.kind, x.i, 0.0, x.s.c_str(), nullptr, 0});
    call = opcert_op_call{sizeof(opcert_op_call), key.c_str(), in.data(), static_cast<int32_t>(in.size()),
                          out.data(), static_cast<int32_t>(out.size()), attr.data(), static_cast<int32_t>(attr.size())};
  }
  static opcert_tensor view(Tensor& t) {
    return opcert_tensor{sizeof(opcert_tensor), t.name.c_str(), t.data(), {OPCERT_DEVICE_CPU, 0}, t.dtype,
                         static_cast<int32_t>(t.shape.size()), t.shape.data(), nullptr, 0};
  }
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

/// The allowed error of an fp32-accumulated result rounded to `dtype`: one rounding of the
/// output (u_out |want|) plus fp32 accumulation over `depth` terms whose absolute sum is `mag`.
inline double gemm_tolerance(int32_t dtype, double want, double mag, int64_t depth) {
  const double u_out = opcert::unit_roundoff(static_cast<opcert_dtype>(dtype));
  return 2.0 * u_out * std::fabs(want) + (static_cast<double>(depth) + 2.0) * 0x1p-24 * mag + 1e-30;
}

}  // namespace opcert::test::cpugemm
