// The one job loop of collectives (DESIGN.md section 8), for `opcert run` and `opcert bench`
// alike, on any placement of the ranks: one process (SingleWorld) or the ranks of an MPI job. The
// steps run in order on every rank, each under RankSession's deadline; consecutive steps on one
// backend share a communicator, rebuilt after a failure. In each step every rank prepares its
// collective, the ranks agree that all are ready, and the verb's step body does its part (run:
// launch and check; bench: check, warm up, time); each rank's outcome travels to rank 0's ledger.
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/case.h"
#include "model/case_result.h"
#include "ranks/world.h"
#include "session/execution/prepared_collective.h"
#include "session/planning/targets.h"
#include "session/rank_loop/rank_session.h"

namespace opcert {

/// One step of the job: a collective case (a suite case, or one size of it) on one implementation.
struct CollectiveStep {
  std::size_t backend_index = 0;  // into the targets
  std::string impl_key;
  const Case* c = nullptr;        // must outlive the loop
  /// What the ranks compare to be sure they run the same steps in the same order.
  std::string name;
};

/// What the step body works with on this rank, once every rank has its collective ready.
struct StepRun {
  RankSession& session;
  const World& world;
  BackendHandle& backend;
  opcert_device device;
  Communicator& comm;
  PreparedCollective& prepared;
  const CollectiveStep& step;
  const std::string& what;  // CollectiveLoop::what
  RankSession::Clock::time_point start;
  /// This rank's result of the step (the body sets it: the check's, or a failure's).
  CaseResult& result;
  /// More for the ledger beside the result (the bench's "seconds" and "timing").
  nlohmann::json& extra;

  /// The result of a collective call that threw on this rank: TIMEOUT or ERROR, the reason
  /// prefixed with the rank. The communicator is aborted and dropped, so that the other ranks'
  /// calls fail rather than wait.
  CaseResult failure(const std::exception& e) const;
};

struct CollectiveLoop {
  std::vector<RunTarget> targets;
  std::vector<CollectiveStep> steps;  // grouped by backend
  std::chrono::milliseconds timeout{60000};
  /// How messages name a step's collective: "case" (run) or "collective" (bench).
  std::string what = "case";
  /// Rank 0's ledger, made once every rank agreed on the steps.
  std::function<std::unique_ptr<RankLedger>()> make_ledger;
  std::function<void(StepRun&)> body;
};

/// Runs `loop` on every rank of `world` (each calls it with the same arguments); rank 0's ledger
/// gets {"result": <CaseResult>, ...extra} from every rank for every step. Returns the ledger's
/// exit code on every rank. Throws InputError / NoBackendError, on every rank alike, before any
/// step runs.
int run_collective_loop(const CollectiveLoop& loop, World& world);

/// This rank's device on `backend`: one device per rank, picked by the local rank modulo the
/// backend's devices (docs/CLI.md). Throws NoBackendError when the backend has none.
opcert_device rank_device(const BackendHandle& backend, const World& world);

}  // namespace opcert
