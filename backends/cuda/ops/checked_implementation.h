// Registration of an op whose query is its operand parser's verdict: the parser records problems
// in an sdk::CallCheck (operands in CUDA memory); query answers from it, run parses again with data
// required and throws INVALID_ARGUMENT on the first problem (the run function does that part).
#pragma once

#include <opcert/sdk/call_check.h>

#include <string>
#include <utility>

#include "cuda_context.h"

namespace opcert::cuda {

/// `parse(call, check)` validates the operands; `run(ctx, call)` launches.
template <class Parse>
sdk::Implementation checked_implementation(CudaContext& ctx, std::string key, std::string op, std::string description,
                                           Parse parse, void (*run)(CudaContext&, const sdk::OpCall&)) {
  return {std::move(key), std::move(op), std::move(description),
          [parse](const sdk::OpCall& call) {
            sdk::CallCheck check(call, false, OPCERT_DEVICE_CUDA);
            parse(call, check);
            return check.support();
          },
          [&ctx, run](const sdk::OpCall& call) { run(ctx, call); }};
}

}  // namespace opcert::cuda
