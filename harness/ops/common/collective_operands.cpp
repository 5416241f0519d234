#include <fmt/format.h>

#include <opcert/sdk/ops/collectives.h>

#include <stdexcept>

#include "model/dtype.h"
#include "ops/common/collective_operands.h"

namespace opcert::ops::common {

namespace collective = sdk::collective_names;  // the operands' names, the SDK's

using namespace opkit;

namespace {

constexpr int64_t kMaxCount = (int64_t{1} << 31) - 1;  // MPI and NCCL count in int

}  // namespace

std::vector<ParamDef> collective_params(bool reduce_op, bool root) {
  std::vector<ParamDef> defs{{"dtype", nullptr, true}, {"count", nullptr, true}};
  if (reduce_op) defs.push_back({"reduce_op", "sum"});
  if (root) defs.push_back({"root", 0});
  defs.push_back({"in_place", false});
  return defs;
}

void build_collective(std::string_view op, std::span<const ParamDef> defs, const json& params, Case& c) {
  const ParamReader p(op, defs, params);
  const auto dtype = p.dtype("dtype", {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16, OPCERT_DTYPE_I32});
  const int64_t count = p.integer("count");
  if (count < 0 || count > kMaxCount)
    throw std::invalid_argument(fmt::format("parameter 'count' must be in [0, 2^31 - 1], not {}", count));
  for (const auto& d : defs) {
    if (!p.given(d.name)) continue;
    if (d.name == "reduce_op") c.attrs[collective::kReduceOp] = p.choice("reduce_op", {"sum", "max", "min", "avg"});
    if (d.name == "root") c.attrs[collective::kRoot] = p.integer("root");
    if (d.name == "in_place") c.attrs[collective::kInPlace] = int64_t{p.boolean("in_place") ? 1 : 0};
  }
  auto x = tensor(collective::kX, dtype, {count});
  x.fill.kind = FillSpec::Kind::kExact;  // integer-valued by construction (check/collectives/rank_inputs.h)
  c.inputs = {x};
  c.outputs = {tensor(collective::kY, dtype, {count})};
  c.fill_mode = FillMode::kExact;
  c.dtype = std::string(dtype_name(dtype));
  c.tags.push_back("exact");
  if (count == 0) c.tags.push_back("empty");
}

}  // namespace opcert::ops::common
