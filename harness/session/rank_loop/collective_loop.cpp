#include "session/rank_loop/collective_loop.h"

#include <fmt/format.h>

#include "model/case_result_json.h"
#include "model/input_error.h"

namespace opcert {
namespace {

using Clock = RankSession::Clock;

// This rank's collective ready to run on `comm`, or null with `result` saying why not: ERROR
// without a communicator, SKIPPED when the backend declines, ERROR when the operands cannot be placed.
std::unique_ptr<PreparedCollective> prepare_step(BackendHandle& backend, const CollectiveStep& step, opcert_device device,
                                                 const Communicator& comm, const World& world, CaseResult& result) {
  if (comm.comm != nullptr)
    return PreparedCollective::prepare(backend, step.impl_key, *step.c, device, {world.rank(), world.size()}, result);
  result = blank_result(backend.name(), step.impl_key, *step.c);
  result.rank = world.rank();
  result.status = Status::kError;
  result.message = fmt::format("rank {}: no communicator: {}", world.rank(), comm.error);
  return nullptr;
}

// Every step of one backend's run of consecutive steps, on one communicator.
void run_backend_steps(const CollectiveLoop& loop, RankSession& session, World& world, std::size_t first,
                       std::size_t last) {
  BackendHandle& backend = *loop.targets.at(loop.steps[first].backend_index).backend;
  const opcert_device device = rank_device(backend, world);
  Communicator comm;
  for (std::size_t i = first; i < last; ++i) {
    const CollectiveStep& step = loop.steps[i];
    const auto start = session.begin_step(i);
    session.ensure_communicator(backend, device, comm, start);  // before the query: it may need the rank count

    CaseResult result;
    nlohmann::json extra = nlohmann::json::object();
    std::unique_ptr<PreparedCollective> prepared = prepare_step(backend, step, device, comm, world, result);
    if (session.agree(prepared ? 1 : 0, start, "get ready for the " + loop.what) == 1) {
      StepRun run{session, world, backend, device, comm, *prepared, step, loop.what, start, result, extra};
      loop.body(run);
    } else if (prepared) {
      result.status = Status::kSkipped;
      result.skip_reason = skip_reason::kNotRunnable;
      result.message = fmt::format("not run: another rank could not run the {} (its result says why)", loop.what);
    }
    session.end_step();
    const auto elapsed = Clock::now() - start;
    result.duration_ms = std::chrono::duration<double, std::milli>(elapsed).count();
    // The step's phases; the ranks' agreements and the result's travel lie outside them.
    PhaseTimes phases = prepared ? prepared->phases() : result.phases.value_or(PhaseTimes{});
    phases.worker = std::chrono::duration<double>(elapsed).count();
    result.phases = phases;
    extra["result"] = to_json(result);
    session.collect(i, extra, start);
    if (RankLedger* ledger = session.ledger()) ledger->end_step();
  }
  if (comm.comm != nullptr) backend.comm_destroy(comm.comm);
}

// The ranks compare a hash of this: every step's name, in order.
std::string step_list(const std::vector<CollectiveStep>& steps) {
  std::string all;
  for (const auto& s : steps) all += s.name + '\n';
  return all;
}

}  // namespace

CaseResult StepRun::failure(const std::exception& e) const {
  CaseResult r = blank_result(backend.name(), step.impl_key, *step.c);
  r.rank = world.rank();
  r.status = collective_failure_status(e);
  r.message = fmt::format("rank {}: {}", world.rank(), e.what());
  RankSession::drop_communicator(backend, comm, fmt::format("it was aborted after a failed {}", what));
  return r;
}

int run_collective_loop(const CollectiveLoop& loop, World& world) {
  RankSession session(world, loop.timeout);
  session.start(step_list(loop.steps), loop.make_ledger);
  for_each_backend_span(loop.steps, [&](std::size_t, std::size_t first, std::size_t last) {
    run_backend_steps(loop, session, world, first, last);
  });
  return session.finish();
}

opcert_device rank_device(const BackendHandle& backend, const World& world) {
  const auto& devices = backend.devices();
  if (devices.empty()) throw NoBackendError(fmt::format("backend '{}' has no device", backend.name()));
  // One device per rank: the local rank picks it (docs/CLI.md).
  return devices[static_cast<std::size_t>(world.local_rank()) % devices.size()].device;
}

}  // namespace opcert
