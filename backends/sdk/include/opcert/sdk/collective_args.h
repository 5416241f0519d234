// Moved: the collectives' operand parser and CollectiveArgs live in opcert/sdk/ops/collectives.h
// (parse_collective). This header forwards there, and keeps the two readers of earlier SDK
// versions so that a plugin written against them still compiles; new code calls parse_collective.
#pragma once

#include <opcert/sdk/ops/collectives.h>

#include <string>

namespace opcert::sdk {

namespace detail {

// A check of the call's operands wherever they are: these readers never checked the memory.
inline CallCheck collective_check(const OpCall& call) {
  const auto x = call.find_input("x");
  return CallCheck(call, false, x ? x->device().type : OPCERT_DEVICE_CPU);
}

}  // namespace detail

/// Why this call cannot run on `nranks` ranks ("" when it can). Prefer parse_collective.
inline std::string collective_unsupported(const OpCall& call, Collective op, int nranks) {
  CallCheck check = detail::collective_check(call);
  parse_collective(call, check, op, nranks);
  return check.reason();
}

/// Reads a call that collective_unsupported accepted. Prefer parse_collective and collective_args.
inline CollectiveArgs read_collective(const OpCall& call, Collective op, int nranks) {
  CallCheck check = detail::collective_check(call);
  const CollectiveOperands operands = parse_collective(call, check, op, nranks);
  check.throw_if_failed();
  return collective_args(operands);
}

}  // namespace opcert::sdk
