#include "ops/query_checks.h"

namespace opcert::torch_backend::checks {
namespace {

std::string shape_text(std::span<const int64_t> shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace


std::string dtype_in(const sdk::Tensor& t, std::initializer_list<int32_t> allowed) {
  for (int32_t d : allowed)
    if (t.dtype() == d) return "";
  std::string names;
  for (int32_t d : allowed) names += (names.empty() ? "" : ", ") + dtype_name(d);
  return "'" + std::string(t.name()) + "' is " + dtype_name(t.dtype()) + ", expected one of " + names;
}

std::string rank_is(const sdk::Tensor& t, int32_t ndim) {
  if (t.ndim() == ndim) return "";
  return "'" + std::string(t.name()) + "' has rank " + std::to_string(t.ndim()) + ", expected " + std::to_string(ndim);
}

std::string shape_is(const sdk::Tensor& t, const std::vector<int64_t>& expected) {
  if (std::vector<int64_t>(t.shape().begin(), t.shape().end()) == expected) return "";
  return "'" + std::string(t.name()) + "' has shape " + shape_text(t.shape()) + ", expected " + shape_text(expected);
}

std::string dense(const sdk::Tensor& t) {
  return t.contiguous() ? "" : "'" + std::string(t.name()) + "' is not dense row-major";
}

std::string same_dtype(const sdk::Tensor& a, const sdk::Tensor& b) {
  if (a.dtype() == b.dtype()) return "";
  return "'" + std::string(b.name()) + "' is " + dtype_name(b.dtype()) + " but '" + std::string(a.name()) + "' is " +
         dtype_name(a.dtype());
}

sdk::Support all_of(std::initializer_list<std::string> results) {
  for (const auto& r : results)
    if (!r.empty()) return sdk::Support::no(r);
  return sdk::Support::yes();
}

}  // namespace opcert::torch_backend::checks
