// An implementation built from its op's operand parser (opcert/sdk/ops/<op>.h), the way every
// backend should answer and run a call:
//   query: parse (no data needed); a contract violation is declined with the parser's reason
//          (the case is SKIPPED), then the backend's own limits may decline more;
//   run:   parse again with data required, throw the first problem as INVALID_ARGUMENT, check the
//          limits again (run may be called without a query), then compute from the typed operands.
#pragma once

#include <opcert/sdk/backend.h>
#include <opcert/sdk/call_check.h>
#include <opcert/sdk/error.h>

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

namespace opcert::sdk {

/// What an implementation is called, and where its operands must live.
struct ImplementationId {
  std::string key{};          // "<backend>.<op>.<variant>"
  std::string op{};           // the catalogue op
  std::string description{};  // one line
  int32_t device_type = OPCERT_DEVICE_CPU;  // the memory every operand must be in
};

/// An implementation whose query and run share `parse` (the op's SDK parser). `limits` says
/// whether this implementation takes operands that parsed (null: all of them); `compute` writes
/// the outputs from operands that parsed with their data and passed the limits; `library_call`
/// (optional) names the library call compute makes for those operands (query_op reports it).
template <class Operands>
Implementation checked_implementation(ImplementationId id, Operands (*parse)(const OpCall&, CallCheck&),
                                      std::type_identity_t<std::function<void(const Operands&)>> compute,
                                      std::type_identity_t<std::function<Support(const Operands&)>> limits = nullptr,
                                      std::type_identity_t<std::function<std::string(const Operands&)>> library_call = nullptr) {
  const int32_t device_type = id.device_type;
  Implementation impl;
  if (library_call)
    impl.library_call = [parse, library_call, device_type](const OpCall& call) {
      CallCheck check(call, false, device_type);
      const Operands operands = parse(call, check);
      return check.ok() ? library_call(operands) : std::string();
    };
  impl.key = std::move(id.key);
  impl.op = std::move(id.op);
  impl.description = std::move(id.description);
  impl.query = [parse, limits, device_type](const OpCall& call) {
    CallCheck check(call, false, device_type);
    const Operands operands = parse(call, check);
    if (!check.ok() || !limits) return check.support();
    return limits(operands);
  };
  impl.run = [parse, limits, compute, device_type](const OpCall& call) {
    CallCheck check(call, true, device_type);
    const Operands operands = parse(call, check);
    check.throw_if_failed();
    if (limits) {
      const Support s = limits(operands);
      if (!s.supported) throw Error(OPCERT_ERROR_UNSUPPORTED, s.reason);
    }
    compute(operands);
  };
  return impl;
}

}  // namespace opcert::sdk
