// Everything the harness knows about one op, in one place. Each folder harness/ops/<op>/ fills an
// OpDescriptor and registers it (op_registry.h); every other part of the harness asks the registry
// and never names an op. docs/ARCHITECTURE.md walks through adding one.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

#include "model/case.h"
#include "opkit/collective.h"
#include "opkit/output_tolerance.h"
#include "opkit/param_table.h"
#include "opkit/reference_output.h"
#include "opkit/work_model.h"

namespace opcert {

enum class OpFamily {
  kCompute,     // one call on one device, checked against the golden reference
  kCollective,  // one call per rank on a communicator, checked by each rank exactly
};

struct OpDescriptor {
  /// The catalogue name suites, reports, platform configs and backends use ("<backend>.<op>.<variant>").
  std::string_view name;
  OpFamily family = OpFamily::kCompute;
  /// Where the op stands in docs/OPS.md; `opcert list` and the summary tables follow this order.
  int order = 0;
  /// One line for `opcert list`.
  std::string_view summary;

  /// The parameters a suite entry may give, in the order generated case ids name them.
  std::span<const ParamDef> (*params)() = nullptr;
  /// Builds `c` from a suite entry's parameters (c.op, c.id, c.suite and c.seed are set): operands,
  /// attributes, fills and the declared dtype (Case::dtype). Throws std::invalid_argument naming
  /// the parameter for a bad or unknown one.
  void (*build)(const nlohmann::json& params, Case& c) = nullptr;

  /// Compute ops: how close output `ref.name` must be (docs/TOLERANCES.md). Called with t.dtype set
  /// and t.rule preset to kExact for an integer output, kBound otherwise; it may change the rule,
  /// and for kBound sets t.absolute and t.relative. The golden reference itself registers apart
  /// (harness/reference/reference.h): it needs LibTorch, which a build may lack.
  void (*tolerance)(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) = nullptr;
  /// Compute ops: the flops and bytes behind `opcert bench`'s figures (docs/OPS.md "Work model").
  WorkModel (*work)(const Case& c) = nullptr;

  /// Collectives: per-rank sizes, expected values and bus factor.
  const CollectiveTraits* collective = nullptr;
};

}  // namespace opcert
