// The implementation list of a backend that runs the collectives on a communicator: one entry per
// collective of the catalogue, so that every backend names and refuses them the same way.
#pragma once

#include <opcert/sdk/backend.h>
#include <opcert/sdk/ops/collectives.h>
#include <opcert/sdk/error.h>

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
                     }});
  }
  return impls;
}

}  // namespace opcert::sdk
