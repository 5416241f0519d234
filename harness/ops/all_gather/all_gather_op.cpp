// all_gather (docs/OPS.md, "Collectives"): every rank's x, concatenated in rank order, in every rank's y (count per rank).
// A collective is data: its parameters, how its buffers scale with the ranks, what each rank's
// output holds and how its bus bandwidth counts; the rank runner and the bench do the rest.
#include <opcert/sdk/ops/collectives.h>

#include "ops/common/collective_operands.h"
#include "opkit/op_registry.h"

namespace opcert::ops::all_gather {
namespace {

// The op's name, the SDK's (opcert/sdk/ops/collectives.h).
constexpr const char* kName = sdk::collective_name(sdk::Collective::kAllGather);

std::span<const ParamDef> parameters() {
  static const auto defs = common::collective_params(false, false);
  return defs;
}

void build_case(const opkit::json& params, Case& c) { common::build_collective(kName, parameters(), params, c); }

double expected(const CollectiveSpec& spec, const RankValues& inputs, int, int64_t i) {
  return inputs.value(static_cast<int>(i / spec.count), i % spec.count);
}

const CollectiveTraits kTraits{
    .reduces = false,
    .rooted = false,
    .input_per_rank = false,
    .output_per_rank = true,
    .expected = expected,
    .bus_factor = slice_bus_factor,
};

const OpDescriptor kAllGather{
    .name = kName,
    .family = OpFamily::kCollective,
    .order = 110,
    .summary = "concatenate every rank's buffer",
    .params = parameters,
    .build = build_case,
    .collective = &kTraits,
};

}  // namespace

OPCERT_REGISTER_OP(kAllGather)

}  // namespace opcert::ops::all_gather
