// Names of the ABI's dtypes as they appear in suites, configs and reports.
#pragma once

#include <opcert/backend_abi.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opcert {

/// "fp32", "bf16", "fp8_e4m3fn", ...; "invalid" for an unknown value.
std::string_view dtype_name(opcert_dtype dtype);

/// Every dtype's name, in the ABI's order (for messages that list them).
std::vector<std::string> all_dtype_names();

/// The inverse of dtype_name; nullopt for an unknown name.
std::optional<opcert_dtype> parse_dtype(std::string_view name);

/// The name ids and declared dtypes use: "e4m3" and "e5m2" for the fp8 formats, else dtype_name.
std::string_view dtype_short_name(opcert_dtype dtype);

/// parse_dtype that also takes the short names "e4m3" and "e5m2".
std::optional<opcert_dtype> parse_dtype_or_short(std::string_view name);

/// Whether `label` is a declared dtype as cases carry them (Case::dtype): a dtype name, or
/// "<in>-><out>", where <in> may be "<a>x<b>"; each a dtype name or short name.
bool is_declared_dtype(std::string_view label);

/// Bytes per element; 0 for OPCERT_DTYPE_INVALID.
std::size_t dtype_bytes(opcert_dtype dtype);

}  // namespace opcert
