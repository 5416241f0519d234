// all_reduce (docs/OPS.md, "Collectives"): every rank's x reduced element-wise (sum, max, min or avg) into every
// rank's y.
// A collective is data: its parameters, how its buffers scale with the ranks, what each rank's
// output holds and how its bus bandwidth counts; the rank runner and the bench do the rest.
#include <algorithm>

#include <opcert/sdk/ops/collectives.h>

#include "ops/common/collective_operands.h"
#include "opkit/op_registry.h"

namespace opcert::ops::all_reduce {
namespace {

// The op's name, the SDK's (opcert/sdk/ops/collectives.h).
constexpr const char* kName = sdk::collective_name(sdk::Collective::kAllReduce);

std::span<const ParamDef> parameters() {
  static const auto defs = common::collective_params(true, false);
  return defs;
}

void build_case(const opkit::json& params, Case& c) { common::build_collective(kName, parameters(), params, c); }

double expected(const CollectiveSpec& spec, const RankValues& inputs, int, int64_t i) {
  return reduced_value(spec, inputs, i);
}

// 2(n-1)/n: in a ring, each rank sends and receives every element twice less its own share
// (reduce-scatter, then all-gather).
double bus_factor(int ranks) {
  const double n = std::max(ranks, 1);
  return 2.0 * (n - 1) / n;
}

const CollectiveTraits kTraits{
    .reduces = true,
    .rooted = false,
    .input_per_rank = false,
    .output_per_rank = false,
    .expected = expected,
    .bus_factor = bus_factor,
};

const OpDescriptor kAllReduce{
    .name = kName,
    .family = OpFamily::kCollective,
    .order = 100,
    .summary = "sum/max/min/avg across ranks",
    .params = parameters,
    .build = build_case,
    .collective = &kTraits,
};

}  // namespace

OPCERT_REGISTER_OP(kAllReduce)

}  // namespace opcert::ops::all_reduce
