#include "run/collective_step.h"

#include <fmt/format.h>

#include "check/prepared_case.h"

namespace opcert {

std::unique_ptr<PreparedCollective> prepare_collective_step(BackendHandle& backend, const std::string& impl_key,
                                                            const Case& c, opcert_device device,
                                                            const Communicator& comm, const World& world,
                                                            CaseResult& result) {
  if (comm.comm != nullptr) return PreparedCollective::prepare(backend, impl_key, c, device, {world.rank(), world.size()}, result);
  result = blank_result(backend.name(), impl_key, c);
  result.rank = world.rank();
  result.status = Status::kError;
  result.message = fmt::format("rank {}: no communicator: {}", world.rank(), comm.error);
  return nullptr;
}

CaseResult failed_collective_step(BackendHandle& backend, const std::string& impl_key, const Case& c,
                                  const World& world, const std::exception& e, Communicator& comm, std::string_view step) {
  CaseResult r = blank_result(backend.name(), impl_key, c);
  r.rank = world.rank();
  r.status = collective_failure_status(e);
  r.message = fmt::format("rank {}: {}", world.rank(), e.what());
  RankSession::drop_communicator(backend, comm, fmt::format("it was aborted after a failed {}", step));
  return r;
}

void stand_down_collective_step(CaseResult& result, std::string_view step) {
  result.status = Status::kSkipped;
  result.message = fmt::format("not run: another rank could not run the {} (its result says why)", step);
}

}  // namespace opcert
