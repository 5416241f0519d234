#include "model/dtype.h"

#include <array>
#include <utility>

namespace opcert {
namespace {

struct DtypeEntry {
  opcert_dtype dtype;
  std::string_view name;
  std::size_t bytes;
};

constexpr std::array<DtypeEntry, 8> kDtypes{{
    {OPCERT_DTYPE_F64, "fp64", 8},
    {OPCERT_DTYPE_F32, "fp32", 4},
    {OPCERT_DTYPE_F16, "fp16", 2},
    {OPCERT_DTYPE_BF16, "bf16", 2},
    {OPCERT_DTYPE_F8_E4M3FN, "fp8_e4m3fn", 1},
    {OPCERT_DTYPE_F8_E5M2, "fp8_e5m2", 1},
    {OPCERT_DTYPE_I8, "int8", 1},
    {OPCERT_DTYPE_I32, "int32", 4},
}};

}  // namespace

std::string_view dtype_name(opcert_dtype dtype) {
  for (const auto& e : kDtypes)
    if (e.dtype == dtype) return e.name;
  return "invalid";
}

std::optional<opcert_dtype> parse_dtype(std::string_view name) {
  for (const auto& e : kDtypes)
    if (e.name == name) return e.dtype;
  return std::nullopt;
}

std::size_t dtype_bytes(opcert_dtype dtype) {
  for (const auto& e : kDtypes)
    if (e.dtype == dtype) return e.bytes;
  return 0;
}

}  // namespace opcert
