// Read-only C++ views over an opcert_op_call: operands by name, attributes with defaults.
// Every accessor honours the struct_size the host reported, so a host of an older minor works.
#pragma once

#include <opcert/backend_abi.h>
#include <opcert/sdk/error.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace opcert::sdk {

/// Bytes of one element of a dtype; 0 for an unknown value.
inline std::size_t dtype_size(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: return 8;
    case OPCERT_DTYPE_F32: case OPCERT_DTYPE_I32: return 4;
    case OPCERT_DTYPE_F16: case OPCERT_DTYPE_BF16: return 2;
    case OPCERT_DTYPE_F8_E4M3FN: case OPCERT_DTYPE_F8_E5M2: case OPCERT_DTYPE_I8: return 1;
    default: return 0;
  }
}

/// The dtype's name as suites and reports spell it ("bf16", "fp8_e4m3fn", ...).
inline std::string dtype_name(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: return "fp64";
    case OPCERT_DTYPE_F32: return "fp32";
    case OPCERT_DTYPE_F16: return "fp16";
    case OPCERT_DTYPE_BF16: return "bf16";
    case OPCERT_DTYPE_F8_E4M3FN: return "fp8_e4m3fn";
    case OPCERT_DTYPE_F8_E5M2: return "fp8_e5m2";
    case OPCERT_DTYPE_I8: return "int8";
    case OPCERT_DTYPE_I32: return "int32";
    default: return "dtype#" + std::to_string(dtype);
  }
}

/// A non-owning view of one operand.
class Tensor {
 public:
  explicit Tensor(const opcert_tensor& t) : t_(&t) {}

  std::string_view name() const { return t_->name ? t_->name : ""; }
  int32_t dtype() const { return t_->dtype; }
  opcert_device device() const { return t_->device; }
  int32_t ndim() const { return t_->ndim; }
  int64_t dim(int32_t i) const { return t_->shape[i < 0 ? i + t_->ndim : i]; }
  std::span<const int64_t> shape() const { return {t_->shape, static_cast<std::size_t>(t_->ndim)}; }

  int64_t numel() const {
    int64_t n = 1;
    for (int32_t i = 0; i < t_->ndim; ++i) n *= t_->shape[i];
    return n;
  }

  /// True when the strides (if any) describe a dense row-major layout.
  bool contiguous() const {
    if (t_->strides == nullptr) return true;
    int64_t expected = 1;
    for (int32_t i = t_->ndim - 1; i >= 0; --i) {
      if (t_->shape[i] != 1 && t_->strides[i] != expected) return false;
      expected *= t_->shape[i];
    }
    return true;
  }

  template <class T = void>
  T* data() const {
    return reinterpret_cast<T*>(static_cast<char*>(t_->data) + t_->byte_offset);
  }

  const opcert_tensor& raw() const { return *t_; }

 private:
  const opcert_tensor* t_;
};

/// The whole call: implementation key, named inputs and outputs, attributes.
class OpCall {
 public:
  explicit OpCall(const opcert_op_call& c) : c_(&c) {}

  std::string_view impl_key() const { return c_->impl_key ? c_->impl_key : ""; }

  std::optional<Tensor> find_input(std::string_view name) const { return find(c_->inputs, c_->input_count, name); }
  std::optional<Tensor> find_output(std::string_view name) const { return find(c_->outputs, c_->output_count, name); }

  Tensor input(std::string_view name) const { return require(find_input(name), "input", name); }
  Tensor output(std::string_view name) const { return require(find_output(name), "output", name); }

  int32_t input_count() const { return c_->input_count; }
  int32_t output_count() const { return c_->output_count; }
  Tensor input_at(int32_t i) const { return Tensor(*OPCERT_ARRAY_AT(opcert_tensor, c_->inputs, i)); }
  Tensor output_at(int32_t i) const { return Tensor(*OPCERT_ARRAY_AT(opcert_tensor, c_->outputs, i)); }

  int32_t attr_count() const { return c_->attr_count; }
  const opcert_attr& attr_at(int32_t i) const { return *OPCERT_ARRAY_AT(opcert_attr, c_->attrs, i); }

  const opcert_attr* find_attr(std::string_view name) const {
    for (int32_t i = 0; i < c_->attr_count; ++i) {
      const opcert_attr* a = OPCERT_ARRAY_AT(opcert_attr, c_->attrs, i);
      if (a->name != nullptr && name == a->name) return a;
    }
    return nullptr;
  }
  bool has(std::string_view name) const { return find_attr(name) != nullptr; }

  int64_t get_int(std::string_view name, int64_t fallback) const {
    const opcert_attr* a = find_attr(name);
    if (a == nullptr) return fallback;
    expect_kind(*a, OPCERT_ATTR_INT);
    return a->i;
  }
  double get_float(std::string_view name, double fallback) const {
    const opcert_attr* a = find_attr(name);
    if (a == nullptr) return fallback;
    if (a->kind == OPCERT_ATTR_INT) return static_cast<double>(a->i);
    expect_kind(*a, OPCERT_ATTR_FLOAT);
    return a->f;
  }
  std::string get_string(std::string_view name, std::string_view fallback) const {
    const opcert_attr* a = find_attr(name);
    if (a == nullptr) return std::string(fallback);
    expect_kind(*a, OPCERT_ATTR_STRING);
    return a->s ? a->s : "";
  }
  std::vector<int64_t> get_ints(std::string_view name) const {
    const opcert_attr* a = find_attr(name);
    if (a == nullptr) return {};
    expect_kind(*a, OPCERT_ATTR_INT_ARRAY);
    return std::vector<int64_t>(a->ints, a->ints + a->ints_count);
  }

 private:
  // Steps by the elements' struct_size (ABI 1.2): a host whose tensors have grown lays them out wider.
  static std::optional<Tensor> find(const opcert_tensor* ts, int32_t n, std::string_view name) {
    for (int32_t i = 0; i < n; ++i) {
      const opcert_tensor* t = OPCERT_ARRAY_AT(opcert_tensor, ts, i);
      if (t->name != nullptr && name == t->name) return Tensor(*t);
    }
    return std::nullopt;
  }
  static Tensor require(std::optional<Tensor> t, const char* what, std::string_view name) {
    if (!t) throw Error(OPCERT_ERROR_INVALID_ARGUMENT, std::string("missing ") + what + " '" + std::string(name) + "'");
    return *t;
  }
  static void expect_kind(const opcert_attr& a, int32_t kind) {
    if (a.kind != kind)
      throw Error(OPCERT_ERROR_INVALID_ARGUMENT, std::string("attribute '") + a.name + "' has kind " +
                                                     std::to_string(a.kind) + ", expected " + std::to_string(kind));
  }

  const opcert_op_call* c_;
};

}  // namespace opcert::sdk
