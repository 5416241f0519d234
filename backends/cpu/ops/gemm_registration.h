// Registration of the GEMM-family and quantize ops, whose query and run share one operand
// parser over a CallCheck: query reports the parser's verdict; run parses again with data
// required, throws INVALID_ARGUMENT on the first problem, then computes.
#pragma once

#include <opcert/sdk/backend.h>

#include <string>
#include <utility>
#include <vector>

#include "ops/gemm_call_check.h"

namespace opcert::cpu {

/// One implementation from `parse` (operands to arguments, problems recorded in the check)
/// and `compute` (the outputs from checked arguments).
template <class Args>
std::vector<sdk::Implementation> checked_implementation(std::string key, std::string op, std::string description,
                                                        Args (*parse)(const sdk::OpCall&, CallCheck&),
                                                        void (*compute)(const Args&)) {
  sdk::Implementation impl;
  impl.key = std::move(key);
  impl.op = std::move(op);
  impl.description = std::move(description);
  impl.query = [parse](const sdk::OpCall& call) {
    CallCheck check(call, false);
    parse(call, check);
    return check.support();
  };
  impl.run = [parse, compute](const sdk::OpCall& call) {
    CallCheck check(call, true);
    const Args args = parse(call, check);
    check.throw_if_failed();
    compute(args);
  };
  return {impl};
}

}  // namespace opcert::cpu
