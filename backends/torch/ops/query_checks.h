// Small checks shared by the ops' query functions. Each returns an empty string when the check
// passes and the reason otherwise, so a query reads as a list of requirements.
#pragma once

#include <opcert/sdk/backend.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace opcert::torch_backend::checks {

/// The suite/report name of an opcert dtype ("bf16", "fp8_e4m3fn", ...).
using sdk::dtype_name;

/// "" when t's dtype is one of allowed.
std::string dtype_in(const sdk::Tensor& t, std::initializer_list<int32_t> allowed);

/// "" when t has the given rank.
std::string rank_is(const sdk::Tensor& t, int32_t ndim);

/// "" when t's shape equals expected.
std::string shape_is(const sdk::Tensor& t, const std::vector<int64_t>& expected);

/// "" when t is dense row-major (the contract's layout).
std::string dense(const sdk::Tensor& t);

/// "" when b has a's dtype.
std::string same_dtype(const sdk::Tensor& a, const sdk::Tensor& b);

/// The support answer for a list of check results: the first non-empty one is the reason.
sdk::Support all_of(std::initializer_list<std::string> results);

}  // namespace opcert::torch_backend::checks
