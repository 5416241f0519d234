// One op of the mutant backend: its naive fp64 computation and the variants made of it, the
// correct twin and each defect, as implementations "mutants.<op>.<variant>". Each file of ops/
// fills one MutantOp and registers it with the backend's table (MutantImplementations), so a new
// op's mutants are a new file there, its own defects declared in it (defect.h, own_defect).
//
//   OPCERT_REGISTER_IMPLEMENTATIONS(MutantImplementations, "softmax", softmax_mutants)
//
// All read the call with the op's SDK parser, so a call the contract refuses is declined by every
// one of them, and the naive code's own limits decline the rest it does not do; the defects stay
// in the numbers.
#pragma once

#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/implementation_registry.h>

#include <initializer_list>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "defect.h"

namespace opcert::mutants {

using MutantImplementations = sdk::ImplementationRegistry<struct MutantBackendTag>;

template <class Operands>
struct MutantOp {
  const char* op;
  Operands (*parse)(const sdk::OpCall&, sdk::CallCheck&);
  void (*compute)(const Operands&, Defect);
  sdk::Support (*limits)(const Operands&) = nullptr;
  std::initializer_list<std::pair<Defect, const char*>> variants;
};

/// The op's variants as implementations, in the order of m.variants; two variants with one defect
/// (an own_defect number given twice) throw std::logic_error, which fails the plugin's load.
template <class Operands>
std::vector<sdk::Implementation> mutant_variants(const MutantOp<Operands>& m) {
  std::vector<sdk::Implementation> list;
  std::set<Defect> seen;
  for (const auto& [defect, name] : m.variants) {
    if (!seen.insert(defect).second) throw std::logic_error(std::string("mutants.") + m.op + "." + name + " repeats another variant's defect");
    const std::string description = defect == Defect::kNone ? "naive fp64, correct" : std::string("defect: ") + name;
    auto compute = [fn = m.compute, defect = defect](const Operands& operands) { fn(operands, defect); };
    list.push_back(sdk::checked_implementation({std::string("mutants.") + m.op + "." + name, m.op, description}, m.parse,
                                               compute, m.limits));
  }
  return list;
}

}  // namespace opcert::mutants
