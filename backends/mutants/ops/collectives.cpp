// The mutants of the collectives: for each, the correct twin and its defects (naive_collectives.h),
// as implementations "mutants.<op>.<variant>" that run on the CPU backend's communicator
// (MutantBackend::run_collective), registered as every op of this folder is.
#include <opcert/sdk/collective_implementations.h>

#include <string>
#include <utility>
#include <vector>

#include "mutant_op.h"
#include "naive_collectives.h"

namespace opcert::mutants {
namespace {

std::vector<sdk::Implementation> collective_mutants() {
  std::vector<sdk::Implementation> list;
  for (const CollectiveVariant& v : collective_variants()) {
    const std::string description = v.defect == CollectiveDefect::kNone ? "every rank's x gathered, reduced in fp64, correct"
                                                                        : std::string("defect: ") + v.name;
    for (sdk::Implementation impl : sdk::collective_implementations("mutants", v.name, description, mutant_collective_target()))
      if (impl.op == sdk::collective_name(v.op)) list.push_back(std::move(impl));
  }
  return list;
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(MutantImplementations, "collectives", collective_mutants)

}  // namespace opcert::mutants
