// Validation of an op call's operands, for backends written with the SDK: presence, memory,
// dense layout, dtype, rank and shape. The first problem found becomes the one-line reason that
// query_op reports (and that run throws as INVALID_ARGUMENT when called without a query). The
// contract of each op is checked with these by its parser (opcert/sdk/ops/<op>.h).
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

  /// Records a failure unless t has `ndim` dimensions; `labels` names them (e.g. "[T, H]").
  /// Returns whether it has, so that a parser reads dims only from tensors of the right rank.
  bool rank(const Tensor& t, int32_t ndim, std::string_view labels);

  /// Records a failure unless t has the dtype of `model` (another operand of the call).
  void same_dtype(const Tensor& t, const Tensor& model);

  /// Records a failure unless t has the shape and the dtype of `model` (an output "as x").
  void like(const Tensor& t, const Tensor& model);

  /// Records `reason` when `condition` is false.
  void require(bool condition, std::string reason);

  /// Records a failure for the first attribute of the call whose name is not in `known`: the
  /// attributes the op's contract defines (docs/ABI.md, "Attributes": a backend declines what it
  /// does not know rather than compute something the call did not ask for).
  void only_attributes(std::initializer_list<std::string_view> known);

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

/// t's shape as shape_string writes it.
std::string shape_string(const Tensor& t);

/// The memory a device type names in messages: "host memory", "CUDA device memory", ...
std::string memory_name(int32_t device_type);


inline std::string shape_string(std::vector<int64_t> dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

inline std::string shape_string(const Tensor& t) { return shape_string({t.shape().begin(), t.shape().end()}); }

inline std::string memory_name(int32_t device_type) {
  switch (device_type) {
    case OPCERT_DEVICE_CPU: return "host memory";
    case OPCERT_DEVICE_CUDA: return "CUDA device memory";
    case OPCERT_DEVICE_OTHER: return "accelerator memory";
    default: return "memory of device type " + std::to_string(device_type);
  }
}

inline std::optional<Tensor> CallCheck::usable(std::optional<Tensor> t, std::string_view kind,
                                             std::string_view name, bool required) {
  const std::string what = std::string(kind) + " '" + std::string(name) + "'";
  if (!t) {
    if (required) require(false, "missing " + what);
    return std::nullopt;
  }
  if (t->device().type != device_type_) {
    require(false, what + " is in " + memory_name(t->device().type) + ", expected " + memory_name(device_type_));
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
  std::string list;  // appended to: GCC 12 warns falsely (-Wrestrict) on a literal + std::string here
  for (int32_t d : allowed) list.append(list.empty() ? "" : "/").append(dtype_name(d));
  require(false, std::string(t.name()) + " must be " + list + " (got " + dtype_name(t.dtype()) + ")");
}

inline void CallCheck::shape(const Tensor& t, std::vector<int64_t> expected, std::string_view labels) {
  const auto got = t.shape();
  const bool same = got.size() == expected.size() && std::equal(got.begin(), got.end(), expected.begin());
  if (!same)
    require(false, std::string(t.name()) + " has shape " + shape_string({got.begin(), got.end()}) + ", expected " +
                       std::string(labels) + " = " + shape_string(expected));
}

inline bool CallCheck::rank(const Tensor& t, int32_t ndim, std::string_view labels) {
  const bool right = t.ndim() == ndim;
  if (!right)
    require(false, std::string(t.name()) + " must be " + std::to_string(ndim) + "-D " + std::string(labels) + " (got " +
                       shape_string(t) + ")");
  return right;
}

inline void CallCheck::same_dtype(const Tensor& t, const Tensor& model) {
  if (t.dtype() != model.dtype())
    require(false, std::string(t.name()) + " is " + dtype_name(t.dtype()) + ", expected " + dtype_name(model.dtype()) +
                       " (the dtype of " + std::string(model.name()) + ")");
}

inline void CallCheck::like(const Tensor& t, const Tensor& model) {
  shape(t, {model.shape().begin(), model.shape().end()}, "the shape of " + std::string(model.name()));
  same_dtype(t, model);
}

inline void CallCheck::require(bool condition, std::string reason) {
  if (!condition && reason_.empty()) reason_ = std::move(reason);
}

inline void CallCheck::only_attributes(std::initializer_list<std::string_view> known) {
  for (int32_t i = 0; i < call_.attr_count(); ++i) {
    const opcert_attr& a = call_.attr_at(i);
    const std::string_view name = a.name != nullptr ? a.name : "";
    bool found = false;
    for (std::string_view k : known) found = found || k == name;
    if (!found) {
      std::string names;
      for (std::string_view k : known) names += (names.empty() ? "" : ", ") + std::string(k);
      require(false, "attribute '" + std::string(name) + "' is not one this op defines (" +
                         (names.empty() ? std::string("it has none") : names) + "); declined rather than ignored");
      return;
    }
  }
}

inline Support CallCheck::support() const { return ok() ? Support::yes() : Support::no(reason_); }

inline void CallCheck::throw_if_failed() const {
  if (!ok()) throw Error(OPCERT_ERROR_INVALID_ARGUMENT, reason_);
}

}  // namespace opcert::sdk

// The attribute readers that record into a CallCheck (string_choice, int_attr, ...).
#include <opcert/sdk/attribute_check.h>
