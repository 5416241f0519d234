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

std::vector<std::string> all_dtype_names() {
  std::vector<std::string> names;
  for (const auto& e : kDtypes) names.emplace_back(e.name);
  return names;
}

std::optional<opcert_dtype> parse_dtype(std::string_view name) {
  for (const auto& e : kDtypes)
    if (e.name == name) return e.dtype;
  return std::nullopt;
}

std::string_view dtype_short_name(opcert_dtype dtype) {
  if (dtype == OPCERT_DTYPE_F8_E4M3FN) return "e4m3";
  if (dtype == OPCERT_DTYPE_F8_E5M2) return "e5m2";
  return dtype_name(dtype);
}

std::optional<opcert_dtype> parse_dtype_or_short(std::string_view name) {
  if (name == "e4m3") return OPCERT_DTYPE_F8_E4M3FN;
  if (name == "e5m2") return OPCERT_DTYPE_F8_E5M2;
  return parse_dtype(name);
}

bool is_declared_dtype(std::string_view label) {
  const auto arrow = label.find("->");
  if (arrow == std::string_view::npos) return parse_dtype_or_short(label).has_value();
  const std::string_view in = label.substr(0, arrow), out = label.substr(arrow + 2);
  if (!parse_dtype_or_short(out)) return false;
  const auto times = in.find('x');
  if (times == std::string_view::npos) return parse_dtype_or_short(in).has_value();
  return parse_dtype_or_short(in.substr(0, times)) && parse_dtype_or_short(in.substr(times + 1));
}

std::size_t dtype_bytes(opcert_dtype dtype) {
  for (const auto& e : kDtypes)
    if (e.dtype == dtype) return e.bytes;
  return 0;
}

}  // namespace opcert
