// broadcast (docs/OPS.md, "Collectives"): the root rank's x in every rank's y.
// A collective is data: its parameters, how its buffers scale with the ranks, what each rank's
// output holds and how its bus bandwidth counts; the rank runner and the bench do the rest.
#include <opcert/sdk/ops/collectives.h>

#include "ops/common/collective_operands.h"
#include "opkit/op_registry.h"

namespace opcert::ops::broadcast {
namespace {

// The op's name, the SDK's (opcert/sdk/ops/collectives.h).
constexpr const char* kName = sdk::collective_name(sdk::Collective::kBroadcast);

std::span<const ParamDef> parameters() {
  static const auto defs = common::collective_params(false, true);
  return defs;
}

void build_case(const opkit::json& params, Case& c) { common::build_collective(kName, parameters(), params, c); }

// The root names a rank of the world: the rank check says so before it asks for values.
double expected(const CollectiveSpec& spec, const RankValues& inputs, int, int64_t i) {
  return inputs.value(*spec.root_rank(inputs.ranks()), i);
}

// 1: every link carries the whole buffer once.
double bus_factor(int) { return 1.0; }

const CollectiveTraits kTraits{
    .reduces = false,
    .rooted = true,
    .input_per_rank = false,
    .output_per_rank = false,
    .expected = expected,
    .bus_factor = bus_factor,
};

const OpDescriptor kBroadcast{
    .name = kName,
    .family = OpFamily::kCollective,
    .order = 130,
    .summary = "root's buffer to every rank",
    .params = parameters,
    .build = build_case,
    .collective = &kTraits,
};

}  // namespace

OPCERT_REGISTER_OP(kBroadcast)

}  // namespace opcert::ops::broadcast
