// What the tests of the ops share: a fully built case, made the way a suite makes it (through the
// op's case builder), and its operands looked up by name.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/case.h"
#include "opkit/op_registry.h"

namespace opcert::test {

using Names = std::vector<std::string>;
using Shape = std::vector<int64_t>;

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

/// The message of the std::invalid_argument the builder throws ("" if none).
inline std::string error_of(const std::string& op, const nlohmann::json& params) {
  try {
    build_case(op, params);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

inline const TensorSpec& input(const Case& c, const std::string& name) {
  auto* t = c.find_input(name);
  if (!t) throw std::logic_error("no input " + name);
  return *t;
}

inline const TensorSpec& output(const Case& c, const std::string& name) {
  auto* t = c.find_output(name);
  if (!t) throw std::logic_error("no output " + name);
  return *t;
}

inline Names names(const std::vector<TensorSpec>& specs) {
  Names out;
  for (const auto& s : specs) out.push_back(s.name);
  return out;
}

}  // namespace opcert::test
