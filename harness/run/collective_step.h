// What one rank does with its collective in one step of a rank loop, the same in `opcert run` and
// `opcert bench` on collectives: prepare it on the communicator, record a failure, or stand down
// because another rank could not run it.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include "check/collectives/collective_case.h"
#include "check/suite.h"
#include "loader/backend_handle.h"
#include "model/case_result.h"
#include "ranks/world.h"
#include "run/rank_session.h"

namespace opcert {

/// This rank's collective `c` on `impl_key`, its operands placed, ready to run on `comm`. Null
/// when it cannot run here; `result` then says why: ERROR without a communicator, SKIPPED when the
/// backend declines the case, ERROR when the operands cannot be placed.
std::unique_ptr<PreparedCollective> prepare_collective_step(BackendHandle& backend, const std::string& impl_key,
                                                            const Case& c, opcert_device device,
                                                            const Communicator& comm, const World& world,
                                                            CaseResult& result);

/// The result of a collective that threw on this rank: TIMEOUT or ERROR, the reason prefixed with
/// the rank. The communicator is aborted and dropped, so that the other ranks' calls fail rather
/// than wait; `step` names what failed in the reason it is dropped for ("case", "collective").
CaseResult failed_collective_step(BackendHandle& backend, const std::string& impl_key, const Case& c,
                                  const World& world, const std::exception& e, Communicator& comm, std::string_view step);

/// Marks this rank's result SKIPPED: it was ready, but another rank could not run the `step`.
void stand_down_collective_step(CaseResult& result, std::string_view step);

}  // namespace opcert
