// Names of the ABI's dtypes as they appear in suites, configs and reports.
#pragma once

#include <opcert/backend_abi.h>

#include <optional>
#include <string_view>

namespace opcert {

/// "fp32", "bf16", "fp8_e4m3fn", ...; "invalid" for an unknown value.
std::string_view dtype_name(opcert_dtype dtype);

/// The inverse of dtype_name; nullopt for an unknown name.
std::optional<opcert_dtype> parse_dtype(std::string_view name);

/// Bytes per element; 0 for OPCERT_DTYPE_INVALID.
std::size_t dtype_bytes(opcert_dtype dtype);

}  // namespace opcert
