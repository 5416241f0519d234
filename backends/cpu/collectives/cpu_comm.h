// The CPU backend's communicator: MPI across the ranks of an MPI job (its own duplicate of
// MPI_COMM_WORLD, non-blocking calls polled against the timeout), or, for a single rank without
// MPI, the local copies the collectives reduce to. The ABI's opcert_comm* is a CpuComm*.
#pragma once

#include <cstdint>
#include <memory>

#include <opcert/sdk/ops/collectives.h>

namespace opcert::cpu {

using sdk::Collective;
using sdk::CollectiveArgs;
using sdk::Reduction;

class CpuComm {
 public:
  virtual ~CpuComm() = default;
  virtual int rank() const = 0;
  virtual int nranks() const = 0;
  /// Runs one collective to completion. Throws sdk::Error: TIMEOUT when the ranks do not all
  /// take part within the communicator's timeout, ABORTED after abort().
  virtual void run(const CollectiveArgs& args) = 0;
  /// Abandons what is in flight; later calls fail with ABORTED.
  virtual void abort() = 0;
};

/// The id rank 0 hands to every rank: a random tag the ranks compare when they join.
uint32_t cpu_comm_unique_id(uint8_t* id);

/// Rank `rank` of `nranks`. With MPI initialised: across MPI_COMM_WORLD (nranks must be its
/// size, rank its rank). Without: nranks must be 1. `timeout_seconds` (0: 300 s) bounds the
/// joining and every collective. Throws sdk::Error.
std::unique_ptr<CpuComm> make_cpu_comm(int rank, int nranks, const uint8_t* id, uint32_t id_bytes, double timeout_seconds);

/// The single-rank communicator (no MPI): each collective is a copy of x into y.
std::unique_ptr<CpuComm> make_local_comm();

/// Ranks of the MPI job when MPI is initialised, else 1 (what query_op sizes a call against).
int mpi_job_ranks();

/// The MPI communicator; nullptr when this build has no MPI or MPI is not initialised.
std::unique_ptr<CpuComm> make_mpi_comm(int rank, int nranks, uint64_t tag, double timeout_seconds);

}  // namespace opcert::cpu
