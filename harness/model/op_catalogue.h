// The catalogue of ops every backend is measured against (docs/OPS.md is the full contract).
#pragma once

#include <span>
#include <string_view>

namespace opcert {

enum class OpFamily { kCompute, kCollective };

struct OpEntry {
  std::string_view name;     // "gemm", "attention", "all_reduce", ...
  OpFamily family;
  std::string_view summary;  // one line for `opcert list`
};

/// Every op of the catalogue, in documentation order.
std::span<const OpEntry> op_catalogue();

/// The catalogue entry of `name`, or nullptr.
const OpEntry* find_op(std::string_view name);

}  // namespace opcert
