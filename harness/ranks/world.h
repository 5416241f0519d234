// The ranks of a collective run and the few things the harness does across them (DESIGN.md
// section 8): broadcast the backend's unique id, agree on a flag, carry each rank's result to
// rank 0, end the whole job. Every wait has a deadline, so a dead or hung rank turns into a
// `false` here, never into a hang. Backed by MPI when opcert was started by an MPI launcher,
// else by a world of one rank.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opcert {

using Deadline = std::chrono::steady_clock::time_point;

class World {
 public:
  virtual ~World() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Rank among the processes of this host (picks the device).
  virtual int local_rank() const = 0;
  /// How many ranks run on this host: they share its devices (--devices).
  virtual int local_size() const = 0;
  /// "mpi", or "single" when opcert was not started by an MPI launcher.
  virtual std::string launcher() const = 0;
  /// Why this is a single rank ("" under MPI): shown once, so nobody mistakes it for a 1-rank MPI job.
  virtual std::string single_rank_reason() const = 0;
  /// The MPI library's own version line ("Open MPI v4.1.4, ..."), "" without MPI: for reports.
  virtual std::string library_version() const = 0;

  /// Root's `bytes` to every rank (same size on every rank). False when the deadline passed.
  virtual bool broadcast(std::vector<uint8_t>& bytes, int root, Deadline deadline) = 0;
  /// The minimum of `value` over the ranks, or nullopt when the deadline passed.
  virtual std::optional<int64_t> all_min(int64_t value, Deadline deadline) = 0;
  /// A message to rank 0 (from any other rank), in order. False when the deadline passed.
  virtual bool send_to_root(const std::string& message, Deadline deadline) = 0;
  /// Rank 0: the next message from `from`, or nullopt when the deadline passed.
  virtual std::optional<std::string> receive_from(int from, Deadline deadline) = 0;

  /// Ends every rank of the job at once with `code` (MPI_Abort); does not return.
  [[noreturn]] virtual void abort_job(int code) = 0;
  /// Orderly end of a job whose ranks are all well (MPI_Finalize).
  virtual void finalize() = 0;
};

/// The world of this process: MPI when built with it and started by an MPI launcher (MPI is
/// initialised here, with threads, as the watchdog may end the job from its own thread), else a
/// single rank. Throws std::runtime_error when MPI cannot start.
std::unique_ptr<World> make_world();

/// True when this build can run collectives across ranks (built with MPI).
bool world_has_mpi();

}  // namespace opcert
