// Validation of an op call's operands, for backends written with the SDK: presence, memory,
// dense layout, dtype and shape. The first problem found becomes the one-line reason that query_op
// reports (and that run throws as INVALID_ARGUMENT when called without a query).
#pragma once

#include <opcert/sdk/backend.h>

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opcert::sdk {

class CallCheck {
 public:
  /// `need_data`: true for run (buffers must be present), false for a query. Operands must be
  /// in memory of `device_type` (the backend's own).
  CallCheck(const OpCall& call, bool need_data, int32_t device_type = OPCERT_DEVICE_CPU)
      : call_(call), need_data_(need_data), device_type_(device_type) {}

  /// The named input/output if present and usable (in the backend's memory, dense, data when needed);
  /// records a failure when it is required and missing or unusable.
  std::optional<Tensor> input(std::string_view name, bool required = true);
  std::optional<Tensor> output(std::string_view name, bool required = true);

  /// Records a failure unless t's dtype is one of `allowed`.
  void dtype(const Tensor& t, std::initializer_list<int32_t> allowed);

  /// Records a failure unless t's shape equals `expected`; `labels` names each dimension in the
  /// message (e.g. "[M, K]").
  void shape(const Tensor& t, std::vector<int64_t> expected, std::string_view labels);

  /// Records `reason` when `condition` is false.
  void require(bool condition, std::string reason);

  bool ok() const { return reason_.empty(); }
  const std::string& reason() const { return reason_; }

  /// query: the verdict. run: throws Error(INVALID_ARGUMENT) with the reason unless ok().
  Support support() const;
  void throw_if_failed() const;

 private:
  std::optional<Tensor> usable(std::optional<Tensor> t, std::string_view kind, std::string_view name,
                                    bool required);

  const OpCall& call_;
  bool need_data_;
  int32_t device_type_;
  std::string reason_;
};

/// "[2, 3]" for a shape.
std::string shape_string(std::vector<int64_t> dims);

/// The value of string attribute `name` (default `fallback`) if it is one of `allowed`;
/// otherwise records why and returns the default.
std::string string_choice(CallCheck& check, const OpCall& call, std::string_view name, std::string_view fallback,
                          std::initializer_list<std::string_view> allowed);

inline std::string shape_string(std::vector<int64_t> dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

inline std::optional<Tensor> CallCheck::usable(std::optional<Tensor> t, std::string_view kind,
                                             std::string_view name, bool required) {
  const std::string what = std::string(kind) + " '" + std::string(name) + "'";
  if (!t) {
    if (required) require(false, "missing " + what);
    return std::nullopt;
  }
  if (t->device().type != device_type_) {
    require(false, what + " is not in " + (device_type_ == OPCERT_DEVICE_CPU ? std::string("host") : std::string("device")) + " memory");
    return std::nullopt;
  }
  if (t->ndim() < 0 || (t->ndim() > 0 && t->raw().shape == nullptr)) {
    require(false, what + " has no shape");
    return std::nullopt;
  }
  for (int64_t d : t->shape()) {
    if (d < 0) {
      require(false, what + " has a negative dimension");
      return std::nullopt;
    }
  }
  if (!t->contiguous()) {
    require(false, what + " is not dense row-major (strided views are not supported)");
    return std::nullopt;
  }
  if (need_data_ && t->numel() > 0 && t->raw().data == nullptr) {
    require(false, what + " has no data");
    return std::nullopt;
  }
  return t;
}

inline std::optional<Tensor> CallCheck::input(std::string_view name, bool required) {
  return usable(call_.find_input(name), "input", name, required);
}

inline std::optional<Tensor> CallCheck::output(std::string_view name, bool required) {
  return usable(call_.find_output(name), "output", name, required);
}

inline void CallCheck::dtype(const Tensor& t, std::initializer_list<int32_t> allowed) {
  for (int32_t d : allowed)
    if (t.dtype() == d) return;
  std::string list;
  for (int32_t d : allowed) list += (list.empty() ? "" : "/") + dtype_name(d);
  require(false, std::string(t.name()) + " must be " + list + " (got " + dtype_name(t.dtype()) + ")");
}

inline void CallCheck::shape(const Tensor& t, std::vector<int64_t> expected, std::string_view labels) {
  const auto got = t.shape();
  const bool same = got.size() == expected.size() && std::equal(got.begin(), got.end(), expected.begin());
  if (!same)
    require(false, std::string(t.name()) + " has shape " + shape_string({got.begin(), got.end()}) + ", expected " +
                       std::string(labels) + " = " + shape_string(expected));
}

inline void CallCheck::require(bool condition, std::string reason) {
  if (!condition && reason_.empty()) reason_ = std::move(reason);
}

inline Support CallCheck::support() const { return ok() ? Support::yes() : Support::no(reason_); }

inline void CallCheck::throw_if_failed() const {
  if (!ok()) throw Error(OPCERT_ERROR_INVALID_ARGUMENT, reason_);
}

inline std::string string_choice(CallCheck& check, const OpCall& call, std::string_view name, std::string_view fallback,
                          std::initializer_list<std::string_view> allowed) {
  const opcert_attr* attr = call.find_attr(name);
  if (attr == nullptr) return std::string(fallback);
  if (attr->kind != OPCERT_ATTR_STRING || attr->s == nullptr) {
    check.require(false, "attribute '" + std::string(name) + "' must be a string");
    return std::string(fallback);
  }
  const std::string value = attr->s;
  std::string list;
  for (std::string_view a : allowed) {
    if (value == a) return value;
    list += (list.empty() ? "\"" : ", \"") + std::string(a) + "\"";
  }
  check.require(false, "attribute " + std::string(name) + " = \"" + value + "\" is not supported (" + list + ")");
  return std::string(fallback);
}

}  // namespace opcert::sdk
