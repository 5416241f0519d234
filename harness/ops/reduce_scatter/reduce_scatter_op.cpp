// reduce_scatter (docs/OPS.md, "Collectives"): every rank's x (count per rank) reduced element-wise; rank r keeps slice r.
// A collective is data: its parameters, how its buffers scale with the ranks, what each rank's
// output holds and how its bus bandwidth counts; the rank runner and the bench do the rest.
#include <opcert/sdk/ops/collectives.h>

#include "ops/common/collective_operands.h"
#include "opkit/op_registry.h"

namespace opcert::ops::reduce_scatter {
namespace {

// The op's name, the SDK's (opcert/sdk/ops/collectives.h).
constexpr const char* kName = sdk::collective_name(sdk::Collective::kReduceScatter);

std::span<const ParamDef> parameters() {
  static const auto defs = common::collective_params(true, false);
  return defs;
}

void build_case(const opkit::json& params, Case& c) { common::build_collective(kName, parameters(), params, c); }

double expected(const CollectiveSpec& spec, const RankValues& inputs, int rank, int64_t i) {
  return reduced_value(spec, inputs, rank * spec.count + i);
}

const CollectiveTraits kTraits{
    .reduces = true,
    .rooted = false,
    .input_per_rank = true,
    .output_per_rank = false,
    .expected = expected,
    .bus_factor = slice_bus_factor,
};

const OpDescriptor kReduceScatter{
    .name = kName,
    .family = OpFamily::kCollective,
    .order = 120,
    .summary = "reduce, then each rank keeps its slice",
    .params = parameters,
    .build = build_case,
    .collective = &kTraits,
};

}  // namespace

OPCERT_REGISTER_OP(kReduceScatter)

}  // namespace opcert::ops::reduce_scatter
