// Operand checks shared by the CPU backend's softmax, norm, rope and attention implementations.
// A call that breaks the contract of docs/OPS.md (wrong rank, mismatched shapes, a missing
// operand) is an error (OPCERT_ERROR_INVALID_ARGUMENT) from both query and run; a dtype the
// implementation does not handle is an "unsupported" answer with the reason.
#pragma once

#include <opcert/sdk/op_call.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace opcert::cpu::vec {

using ::opcert::sdk::dtype_name;

inline bool is_float_dtype(int32_t dtype) {
  return dtype == OPCERT_DTYPE_F32 || dtype == OPCERT_DTYPE_F16 || dtype == OPCERT_DTYPE_BF16;
}

inline std::string shape_string(const sdk::Tensor& t) {
  std::string s = "[";
  for (int32_t i = 0; i < t.ndim(); ++i) s += (i ? ", " : "") + std::to_string(t.dim(i));
  return s + "]";
}

/// Throws OPCERT_ERROR_INVALID_ARGUMENT with message unless ok.
inline void require(bool ok, const std::string& message) {
  if (!ok) throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, message);
}

/// The operand must be dense row-major host memory.
inline void require_dense(const sdk::Tensor& t) {
  require(t.contiguous(), "operand '" + std::string(t.name()) + "' is not dense row-major");
  require(t.ndim() >= 0 && (t.ndim() == 0 || t.raw().shape != nullptr),
          "operand '" + std::string(t.name()) + "' has no shape");
  for (int32_t i = 0; i < t.ndim(); ++i)
    require(t.dim(i) >= 0, "operand '" + std::string(t.name()) + "' has a negative dimension");
}

inline bool same_shape(const sdk::Tensor& a, const sdk::Tensor& b) {
  if (a.ndim() != b.ndim()) return false;
  for (int32_t i = 0; i < a.ndim(); ++i)
    if (a.dim(i) != b.dim(i)) return false;
  return true;
}

/// `other` must have the shape and dtype of `like`.
inline void require_like(const sdk::Tensor& other, const sdk::Tensor& like) {
  require_dense(other);
  require(same_shape(other, like), "operand '" + std::string(other.name()) + "' has shape " + shape_string(other) +
                                       ", expected " + shape_string(like) + " (as '" + std::string(like.name()) + "')");
  require(other.dtype() == like.dtype(), "operand '" + std::string(other.name()) + "' is " + dtype_name(other.dtype()) +
                                             ", expected " + dtype_name(like.dtype()) + " (as '" +
                                             std::string(like.name()) + "')");
}

/// `t` must be 1-D of length n with dtype.
inline void require_vector(const sdk::Tensor& t, int64_t n, int32_t dtype) {
  require_dense(t);
  require(t.ndim() == 1 && t.dim(0) == n, "operand '" + std::string(t.name()) + "' has shape " + shape_string(t) +
                                              ", expected [" + std::to_string(n) + "]");
  require(t.dtype() == dtype, "operand '" + std::string(t.name()) + "' is " + dtype_name(t.dtype()) + ", expected " +
                                  dtype_name(dtype));
}

/// Support answer for the op's main float dtype (fp32, fp16, bf16).
inline sdk::Support float_dtype_support(const sdk::Tensor& t) {
  if (is_float_dtype(t.dtype())) return sdk::Support::yes();
  return sdk::Support::no("operand '" + std::string(t.name()) + "' is " + dtype_name(t.dtype()) +
                          "; this implementation handles fp32, fp16 and bf16");
}

}  // namespace opcert::cpu::vec
