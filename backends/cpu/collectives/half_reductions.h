// MPI reductions over fp16 and bf16 (MPI has no 16-bit float types): user-defined MPI ops on
// MPI_UINT16_T that widen each pair to fp32, combine and round back once. Exact for the integer
// inputs of the conformance cases, and what a real 16-bit all-reduce does per step.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "collectives/cpu_comm.h"

namespace opcert::cpu {

/// The MPI op reducing `dtype` (fp16 or bf16) elements with `r` (avg: the sum). Created once.
MPI_Op half_reduction(int32_t dtype, Reduction r);

/// bits / n in fp32, rounded once into `dtype`.
uint16_t half_divide(int32_t dtype, uint16_t bits, int n);

}  // namespace opcert::cpu
