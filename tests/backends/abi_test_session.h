// Shared test support for driving an in-tree backend through its C ABI table only: attributes,
// the ABI structs of one call, error handling, a session (initialize .. finalize), host tensors
// with guard bytes and a deterministic random source. Value codecs stay with each test, so
// every test keeps its own independent idea of what a stored value means.
#pragma once

#include <opcert/backend_abi.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace opcert::test::abi {

/// Bytes per element of an ABI dtype (fp8 and int8: one).
inline std::size_t dtype_bytes(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: return 8;
    case OPCERT_DTYPE_F32: case OPCERT_DTYPE_I32: return 4;
    case OPCERT_DTYPE_F16: case OPCERT_DTYPE_BF16: return 2;
    default: return 1;
  }
}

/// A named attribute of a call.
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

/// What a run or query said: an error code (OPCERT_ERROR_OK on success) and its message, or
/// for a query that succeeded, whether the call is supported and the backend's reason.
struct Outcome {
  int32_t code = OPCERT_ERROR_OK;
  std::string message;
  bool supported = true;  // query only
};

/// The ABI structs of one call; they point into the caller's tensors and attributes, which must
/// outlive it.
struct OpCall {
  std::string key_text;
  std::vector<Attr> attr_values;  // owned: the ABI attributes point into their strings
  std::vector<opcert_tensor> in, out;
  std::vector<opcert_attr> attr;
  opcert_op_call call{};

  OpCall(const std::string& key, std::vector<opcert_tensor> inputs, std::vector<opcert_tensor> outputs,
         std::vector<Attr> attrs)
      : key_text(key), attr_values(std::move(attrs)), in(std::move(inputs)), out(std::move(outputs)) {
    for (const Attr& x : attr_values)
      attr.push_back(opcert_attr{sizeof(opcert_attr), x.name.c_str(), x.kind, x.i, x.f, x.s.c_str(), nullptr, 0});
    call = opcert_op_call{sizeof(opcert_op_call), key_text.c_str(), in.data(), static_cast<int32_t>(in.size()),
                          out.data(), static_cast<int32_t>(out.size()), attr.data(), static_cast<int32_t>(attr.size())};
  }
  OpCall(const OpCall&) = delete;  // `call` points into the vectors
  OpCall& operator=(const OpCall&) = delete;
};

/// One initialised backend, reached through its opcert_api table.
class Session {
 public:
  /// Initialises the backend as a host of ABI 1.`host_minor` (this one's by default; 0: a host
  /// from before publish_outputs, which reads the outputs right after run_op).
  explicit Session(const opcert_api* api, int32_t host_minor = OPCERT_ABI_VERSION_MINOR)
      : api_(api), host_minor_(host_minor) {
    opcert_initialize_args a{sizeof(a), OPCERT_ABI_VERSION_MAJOR, host_minor, nullptr};
    const Outcome init = take(api_->initialize(&a));
    if (init.code != OPCERT_ERROR_OK) throw std::runtime_error("backend initialize failed: " + init.message);
    backend_ = a.backend;
  }
  ~Session() {
    opcert_finalize_args a{sizeof(a), backend_};
    take(api_->finalize(&a));
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const opcert_api* api() const { return api_; }
  opcert_backend* backend() const { return backend_; }

  /// run_op, then publish_outputs (ABI 1.1) as the host does before it reads the outputs; a 1.0
  /// host, or `publish` false, stops after run_op.
  Outcome run(const opcert_op_call& call, bool publish = true) {
    opcert_run_op_args a{sizeof(a), backend_, &call, nullptr};
    Outcome out = take(api_->run_op(&a));
    if (out.code != OPCERT_ERROR_OK || !publish || host_minor_ < 1 ||
        !OPCERT_API_HAS(api_, opcert_api, publish_outputs))
      return out;
    opcert_publish_outputs_args p{sizeof(p), backend_, &call, 0};
    return take(api_->publish_outputs(&p));
  }

  Outcome query(const opcert_op_call& call) {
    opcert_query_op_args a{sizeof(a), backend_, &call, 0, nullptr};
    Outcome out = take(api_->query_op(&a));
    if (out.code == OPCERT_ERROR_OK) {
      out.supported = a.supported != 0;
      if (a.reason != nullptr) out.message = a.reason;
    }
    return out;
  }

  /// The code and message of `e` (OK and "" for null); destroys it.
  Outcome take(opcert_error* e) const {
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

 private:
  const opcert_api* api_;
  int32_t host_minor_;
  opcert_backend* backend_ = nullptr;
};

/// A dense host tensor with 64 guard bytes on each side, so out-of-bounds writes show.
struct GuardedTensor {
  static constexpr std::size_t kGuard = 64;
  static constexpr uint8_t kGuardByte = 0xA5;

  std::string name;
  int32_t dtype = OPCERT_DTYPE_F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> storage;

  GuardedTensor() = default;
  GuardedTensor(std::string n, int32_t dt, std::vector<int64_t> sh)
      : name(std::move(n)), dtype(dt), shape(std::move(sh)) {
    storage.assign(2 * kGuard + static_cast<std::size_t>(numel()) * dtype_bytes(dtype), kGuardByte);
  }

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  uint8_t* data() { return storage.data() + kGuard; }
  const uint8_t* data() const { return storage.data() + kGuard; }
  uint8_t* element(int64_t i) { return data() + i * static_cast<int64_t>(dtype_bytes(dtype)); }
  const uint8_t* element(int64_t i) const { return data() + i * static_cast<int64_t>(dtype_bytes(dtype)); }

  /// The raw stored bits of element i (up to 4 bytes).
  uint32_t bits(int64_t i) const {
    uint32_t b = 0;
    std::memcpy(&b, element(i), dtype_bytes(dtype));
    return b;
  }
  bool guards_intact() const {
    for (std::size_t i = 0; i < kGuard; ++i)
      if (storage[i] != kGuardByte || storage[storage.size() - 1 - i] != kGuardByte) return false;
    return true;
  }
  /// The ABI description of this tensor in host memory.
  opcert_tensor view() {
    return opcert_tensor{sizeof(opcert_tensor), name.c_str(), data(), {OPCERT_DEVICE_CPU, 0}, dtype,
                         static_cast<int32_t>(shape.size()), shape.data(), nullptr, 0};
  }
};

/// A guarded tensor whose values go through `Codec`: static void store(int32_t dtype, double x,
/// uint8_t* p) and static double load(int32_t dtype, const uint8_t* p).
template <class Codec>
struct CodecTensor : GuardedTensor {
  using GuardedTensor::GuardedTensor;
  /// Stores x rounded to the dtype, as the codec rounds.
  void set(int64_t i, double x) { Codec::store(dtype, x, element(i)); }
  double get(int64_t i) const { return Codec::load(dtype, element(i)); }
  std::vector<double> values() const {
    std::vector<double> v(static_cast<std::size_t>(numel()));
    for (int64_t i = 0; i < numel(); ++i) v[static_cast<std::size_t>(i)] = get(i);
    return v;
  }
};

/// A session on host tensors of one type (a GuardedTensor): the ABI structs are built per call.
template <class TensorT>
class HostSession : public Session {
 public:
  using Session::Session;
  using Session::query;
  using Session::run;

  Outcome run(const std::string& key, const std::vector<TensorT*>& inputs, const std::vector<TensorT*>& outputs,
              const std::vector<Attr>& attrs = {}) {
    const OpCall c = describe(key, inputs, outputs, attrs);
    return run(c.call);
  }
  Outcome query(const std::string& key, const std::vector<TensorT*>& inputs, const std::vector<TensorT*>& outputs,
                const std::vector<Attr>& attrs = {}) {
    const OpCall c = describe(key, inputs, outputs, attrs);
    return query(c.call);
  }

  /// The ABI structs of a call on host tensors.
  static OpCall describe(const std::string& key, const std::vector<TensorT*>& inputs,
                         const std::vector<TensorT*>& outputs, const std::vector<Attr>& attrs) {
    std::vector<opcert_tensor> in, out;
    for (TensorT* t : inputs) in.push_back(t->view());
    for (TensorT* t : outputs) out.push_back(t->view());
    return OpCall(key, std::move(in), std::move(out), attrs);
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
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1p-53; }
  /// Uniform integer in [lo, hi].
  int64_t integer(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }
  /// Fills t with uniform values, rounded to its dtype by t.set.
  template <class TensorT>
  void fill(TensorT& t, double lo, double hi) {
    for (int64_t i = 0; i < t.numel(); ++i) t.set(i, uniform(lo, hi));
  }
  template <class TensorT>
  void fill_integers(TensorT& t, int64_t lo, int64_t hi) {
    for (int64_t i = 0; i < t.numel(); ++i) t.set(i, static_cast<double>(integer(lo, hi)));
  }

 private:
  uint64_t state_;
};

}  // namespace opcert::test::abi
