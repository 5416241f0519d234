// all_to_all (docs/OPS.md, "Collectives"): rank r's y holds slice r of every rank's x, in rank order (count per slice).
// A collective is data: its parameters, how its buffers scale with the ranks, what each rank's
// output holds and how its bus bandwidth counts; the rank runner and the bench do the rest.
#include <opcert/sdk/ops/collectives.h>

#include "ops/common/collective_operands.h"
#include "opkit/op_registry.h"

namespace opcert::ops::all_to_all {
namespace {

// The op's name, the SDK's (opcert/sdk/ops/collectives.h).
constexpr const char* kName = sdk::collective_name(sdk::Collective::kAllToAll);

std::span<const ParamDef> parameters() {
  static const auto defs = common::collective_params(false, false);
  return defs;
}

void build_case(const opkit::json& params, Case& c) { common::build_collective(kName, parameters(), params, c); }

double expected(const CollectiveSpec& spec, const RankValues& inputs, int rank, int64_t i) {
  return inputs.value(static_cast<int>(i / spec.count), rank * spec.count + i % spec.count);
}

const CollectiveTraits kTraits{
    .reduces = false,
    .rooted = false,
    .input_per_rank = true,
    .output_per_rank = true,
    .expected = expected,
    .bus_factor = slice_bus_factor,
};

const OpDescriptor kAllToAll{
    .name = kName,
    .family = OpFamily::kCollective,
    .order = 140,
    .summary = "each rank sends a slice to every rank",
    .params = parameters,
    .build = build_case,
    .collective = &kTraits,
};

}  // namespace

OPCERT_REGISTER_OP(kAllToAll)

}  // namespace opcert::ops::all_to_all
