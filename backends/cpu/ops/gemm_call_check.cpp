#include "ops/gemm_call_check.h"

#include <algorithm>

#include "ops/cpu_numeric.h"

namespace opcert::cpu {

std::string shape_string(std::vector<int64_t> dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

std::optional<sdk::Tensor> CallCheck::usable(std::optional<sdk::Tensor> t, std::string_view kind,
                                             std::string_view name, bool required) {
  const std::string what = std::string(kind) + " '" + std::string(name) + "'";
  if (!t) {
    if (required) require(false, "missing " + what);
    return std::nullopt;
  }
  if (t->device().type != OPCERT_DEVICE_CPU) {
    require(false, what + " is not in host memory");
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

std::optional<sdk::Tensor> CallCheck::input(std::string_view name, bool required) {
  return usable(call_.find_input(name), "input", name, required);
}

std::optional<sdk::Tensor> CallCheck::output(std::string_view name, bool required) {
  return usable(call_.find_output(name), "output", name, required);
}

void CallCheck::dtype(const sdk::Tensor& t, std::initializer_list<int32_t> allowed) {
  for (int32_t d : allowed)
    if (t.dtype() == d) return;
  std::string list;
  for (int32_t d : allowed) list += (list.empty() ? "" : "/") + dtype_name(d);
  require(false, std::string(t.name()) + " must be " + list + " (got " + dtype_name(t.dtype()) + ")");
}

void CallCheck::shape(const sdk::Tensor& t, std::vector<int64_t> expected, std::string_view labels) {
  const auto got = t.shape();
  const bool same = got.size() == expected.size() && std::equal(got.begin(), got.end(), expected.begin());
  if (!same)
    require(false, std::string(t.name()) + " has shape " + shape_string({got.begin(), got.end()}) + ", expected " +
                       std::string(labels) + " = " + shape_string(expected));
}

void CallCheck::require(bool condition, std::string reason) {
  if (!condition && reason_.empty()) reason_ = std::move(reason);
}

sdk::Support CallCheck::support() const { return ok() ? sdk::Support::yes() : sdk::Support::no(reason_); }

void CallCheck::throw_if_failed() const {
  if (!ok()) throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, reason_);
}

std::string string_choice(CallCheck& check, const sdk::OpCall& call, std::string_view name, std::string_view fallback,
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

}  // namespace opcert::cpu
