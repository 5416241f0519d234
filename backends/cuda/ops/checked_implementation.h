// Registration helpers of the CUDA backend's ops: query and run bound to the backend's context, and
// for ops whose query is their operand parser's verdict, that query built from the parser (it
// records problems in an sdk::CallCheck, operands in CUDA memory; run parses again with data
// required and throws INVALID_ARGUMENT on the first problem).
#pragma once

#include <opcert/sdk/call_check.h>

#include <string>
#include <utility>

#include "cuda_context.h"

namespace opcert::cuda {

/// An implementation whose query and run take the backend's context.
inline sdk::Implementation context_implementation(CudaContext& ctx, std::string key, std::string op,
                                                  std::string description,
                                                  sdk::Support (*query)(CudaContext&, const sdk::OpCall&),
                                                  void (*run)(CudaContext&, const sdk::OpCall&)) {
  return {std::move(key), std::move(op), std::move(description),
          [&ctx, query](const sdk::OpCall& call) { return query(ctx, call); },
          [&ctx, run](const sdk::OpCall& call) { run(ctx, call); }};
}

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
