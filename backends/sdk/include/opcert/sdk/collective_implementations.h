// The implementation list of a backend that runs the collectives on a communicator: one entry per
// collective of the catalogue, so that every backend names and refuses them the same way, and the
// checked arguments of a collective its communicator runs. Calls are read by parse_collective
// (ops/collectives.h): a query declines what the contract refuses with the parser's reason, then
// what the backend's own limits refuse.
#pragma once

#include <opcert/sdk/backend.h>
#include <opcert/sdk/call_check.h>
#include <opcert/sdk/error.h>
#include <opcert/sdk/ops/collectives.h>

#include <functional>
#include <string>
#include <vector>

namespace opcert::sdk {

/// Why this backend cannot run `call`, a `which` collective ("" when it can).
using CollectiveWhyNot = std::function<std::string(const OpCall& call, Collective which)>;

/// One implementation per collective, keyed `<prefix>.<op>.<transport>` ("cuda.all_reduce.nccl"),
/// whose query answers from `why_not`. Its run refuses: the host runs a collective through
/// run_collective on a communicator (comm_init), never through run_op alone.
inline std::vector<Implementation> collective_implementations(const std::string& prefix, const std::string& transport,
                                                              const std::string& description, CollectiveWhyNot why_not) {
  std::vector<Implementation> impls;
  for (const char* op : kCollectiveOps) {
    const Collective which = collective_of(op);
    impls.push_back({prefix + "." + op + "." + transport, op, description,
                     [which, why_not](const OpCall& call) {
                       const std::string why = why_not(call, which);
                       return why.empty() ? Support::yes() : Support::no(why);
                     },
                     [](const OpCall&) {
                       throw Error(OPCERT_ERROR_INVALID_ARGUMENT, "a collective runs on a communicator (comm_init)");
                     },
                     {}});  // no library call to name: the communicator's is the backend's own
  }
  return impls;
}

/// What a backend's collectives need beyond the contract.
struct CollectiveTarget {
  int32_t device_type = OPCERT_DEVICE_CPU;  // the memory x and y must be in
  std::function<int()> nranks{};            // the ranks a queried call would run on (the job's)
  std::function<std::string(const CollectiveOperands&)> limits{};  // why not, for calls that parsed; null: none
};

/// One implementation per collective (as above) whose query parses the call on target.nranks()
/// ranks, then asks target.limits.
inline std::vector<Implementation> collective_implementations(const std::string& prefix, const std::string& transport,
                                                              const std::string& description, CollectiveTarget target) {
  return collective_implementations(prefix, transport, description, [target](const OpCall& call, Collective which) {
    CallCheck check(call, false, target.device_type);
    const CollectiveOperands operands = parse_collective(call, check, which, target.nranks());
    if (!check.ok() || !target.limits) return check.reason();
    return target.limits(operands);
  });
}

/// The arguments of a `which` call that a communicator of `nranks` ranks runs: parsed with data
/// required; a contract violation throws INVALID_ARGUMENT, a limit UNSUPPORTED, each with its reason.
inline CollectiveArgs checked_collective(const OpCall& call, Collective which, int nranks, const CollectiveTarget& target) {
  CallCheck check(call, true, target.device_type);
  const CollectiveOperands operands = parse_collective(call, check, which, nranks);
  check.throw_if_failed();
  if (target.limits)
    if (const std::string why = target.limits(operands); !why.empty()) throw Error(OPCERT_ERROR_UNSUPPORTED, why);
  return collective_args(operands);
}

}  // namespace opcert::sdk
