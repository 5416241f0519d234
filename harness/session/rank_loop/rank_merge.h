// Compute cases across the ranks of an MPI job (`--devices` under mpirun or srun, docs/CLI.md), for
// `opcert run` and `opcert bench`: every rank runs its share of its node's devices in its own
// workers; the other ranks send each result (bench: each benchmark) to rank 0 as it comes, and rank
// 0 streams them with its own into the one set of outputs.
// Messages, one JSON object each, in order from each rank:
//   {"kind":"hello","results":N,"setup":{...},"lanes":[L0,...]}
//                                                      before anything runs: N results will come,
//                                                      under this setup (run_setup: rank 0 refuses another),
//                                                      from Lt lanes of target t (spread: N is 0, and
//                                                      rank 0 shares the jobs out by the lanes)
//   {"kind":"result","peer":false,"result":{...}}      one per finished case (run)
//   {"kind":"benchmark","benchmark":{"record":{...},"runs":[...]},"check":{...}}
//                                                      one per benchmark timed (bench; its record
//                                                      and its runs whole; check: its check's
//                                                      result, null for a copy baseline)
//   {"kind":"done","complete":true,"logs":{"cpu.device1.worker.log":"..."}}
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "model/bench_record.h"
#include "model/case_result.h"
#include "ranks/world.h"

namespace opcert {

/// A rank other than 0: its side of the merge. result() may be called from several threads.
class RankUplink {
 public:
  /// `patience`: how long a send may wait for rank 0 before it is taken for gone.
  RankUplink(World& world, std::chrono::milliseconds patience) : world_(world), patience_(patience) {}
  void hello(std::size_t results, const nlohmann::json& setup, const std::vector<int>& lanes);
  void result(const CaseResult& result, bool peer);
  /// A benchmark timed (bench), with its check's result when it has one.
  void benchmark(const BenchRecord& record, const std::optional<CaseResult>& check);
  /// The last message: whether this rank ran to its end, and its workers' logs in `log_dir`.
  void done(bool complete, const std::filesystem::path& log_dir);

 private:
  void send(const std::string& message);
  World& world_;
  std::chrono::milliseconds patience_;
  std::mutex mutex_;    // one message at a time: the world's sends are not reentrant
  bool gone_ = false;   // rank 0 stopped receiving: the launcher ends the job
};

/// Rank 0's side: a receiver per other rank, each until that rank's "done".
class RankMerger {
 public:
  using Deliver = std::function<void(CaseResult, bool peer)>;
  using DeliverBenchmark = std::function<void(BenchRecord, std::optional<CaseResult> check)>;
  /// `silence_limit`: a rank silent this long (no result: its case outlived any timeout) is lost.
  RankMerger(World& world, std::chrono::milliseconds silence_limit) : world_(world), silence_limit_(silence_limit) {}
  ~RankMerger();

  /// Every other rank's hello: the number of results they will send in all. Throws
  /// std::runtime_error naming a rank that did not say it within `wait`, and InputError naming a
  /// rank whose setup differs from `setup` (rank 0's) and in what.
  std::size_t gather_hellos(std::chrono::milliseconds wait, const nlohmann::json& setup);
  /// After gather_hellos: how many lanes rank `from` (> 0) said it runs each target on.
  const std::vector<int>& lanes_of(int from) const { return lanes_.at(static_cast<std::size_t>(from)); }
  /// Starts the receivers; each result goes to `deliver` and each benchmark to `benchmark`, from a
  /// receiver's thread (a message of a kind with no receiver is unreadable: the rank is lost).
  void start(Deliver deliver, DeliverBenchmark benchmark = {});
  /// How long the receivers wait for the other ranks once this one is stopped: well inside the
  /// second between Open MPI's SIGTERM and its SIGKILL, so that rank 0 still writes the reports.
  static constexpr std::chrono::milliseconds kStopGrace{500};
  /// After this rank stopped (SIGINT/SIGTERM): the receivers wait `grace` more, then give up. A
  /// stop during finish() starts kStopGrace by itself.
  void stop_after(std::chrono::milliseconds grace);
  /// Waits for the receivers and writes each rank's worker logs to out_dir/logs/rank<r>/. Returns
  /// one line per rank that was lost or did not run to its end; empty when every rank did.
  std::vector<std::string> finish(const std::filesystem::path& out_dir);

 private:
  struct Inbox {
    std::optional<std::string> problem;  // lost, or incomplete
    std::vector<std::pair<std::string, std::string>> logs;
  };
  void receive(int from, Inbox& inbox);

  World& world_;
  std::chrono::milliseconds silence_limit_;
  Deliver deliver_;
  DeliverBenchmark deliver_benchmark_;
  std::vector<Inbox> inboxes_;
  std::vector<std::vector<int>> lanes_;  // from each rank's hello
  std::vector<std::thread> threads_;
  std::atomic<int64_t> give_up_at_{0};  // steady_clock ticks; 0: not stopping
};

}  // namespace opcert
