// The "mutants" backend (docs/TOLERANCES.md, "Detection power"): for each op a correct naive
// implementation ("mutants.<op>.correct", the twin) and deliberately broken ones
// ("mutants.<op>.<defect>"), each a slip an author who misread docs/OPS.md might make.
// `opcert selftest` loads it as a plugin and checks that the shipped suites catch every one.
#include <opcert/sdk/backend.h>
#include <opcert/sdk/collective_implementations.h>

#include <string>
#include <utility>

#include "collectives/collective_impls.h"
#include "mutant_op.h"
#include "naive_collectives.h"

namespace opcert::mutants {
namespace {

class MutantBackend : public sdk::Backend, public cpu::CpuCollectives {
 public:
  static constexpr bool kHasCollectives = true;

  MutantBackend() : CpuCollectives(static_cast<const sdk::Backend&>(*this)) {
    // Every file of ops/ registered its op's variants (mutant_op.h), the collectives' too.
    for (auto& impl : MutantImplementations::make_all()) add(std::move(impl));
  }
  sdk::BackendInfo info() const override { return {"mutants", "1.0", "opcert", "deliberately broken ops (opcert selftest)"}; }

  void run_collective(const sdk::OpCall& call, opcert_comm* comm) override {
    if (comm == nullptr) throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "null communicator");
    auto& c = *reinterpret_cast<cpu::CpuComm*>(comm);
    const std::string key(call.impl_key());
    const sdk::Collective which = sdk::collective_of(implementation(key).op);
    const sdk::CollectiveArgs args = sdk::checked_collective(call, which, c.nranks(), mutant_collective_target());
    for (const CollectiveVariant& v : collective_variants())
      if (v.op == which && key == std::string("mutants.") + sdk::collective_name(v.op) + "." + v.name)
        return run_naive_collective(c, args, v.defect);
    throw sdk::Error(OPCERT_ERROR_NOT_FOUND, "no collective variant '" + key + "'");
  }

};

}  // namespace
}  // namespace opcert::mutants

OPCERT_SDK_EXPORT_PLUGIN(opcert::mutants::MutantBackend)
