// Tests that need a fully built case make it the way a suite does: through the op's case builder.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

#include "check/case_builder.h"
#include "model/case.h"

namespace opcert::test {

/// The case `op` with `params` (a suite entry's params), id "<op>.test". Throws what the builder throws.
inline Case build_case(const std::string& op, const nlohmann::json& params) {
  Case c;
  c.op = op;
  c.id = op + ".test";
  auto builder = case_builder(op);
  if (!builder) throw std::logic_error("no builder for " + op);
  builder(params, c);
  return c;
}

}  // namespace opcert::test
