// Tests that need a fully built case make it the way a suite does: through the op's case builder.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

#include "model/case.h"
#include "opkit/op_registry.h"

namespace opcert::test {

/// The case `op` with `params` (a suite entry's params), id "<op>.test". Throws what the builder throws.
inline Case build_case(const std::string& op, const nlohmann::json& params) {
  Case c;
  c.op = op;
  c.id = op + ".test";
  const OpDescriptor* descriptor = find_op(op);
  if (!descriptor) throw std::logic_error("no op " + op);
  descriptor->build(params, c);
  return c;
}

}  // namespace opcert::test
