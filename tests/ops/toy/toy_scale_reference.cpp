// toy_scale's golden reference: alpha · x exactly, in double (no LibTorch needed for a product).
#include "model/attr.h"
#include "reference/reference.h"
#include "toy_scale.h"
#include "toy_scale_operands.h"

namespace opcert::ops::toy_scale {
namespace {

namespace contract = sdk::toy_scale_names;


std::vector<ReferenceOutput> reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  const double alpha = attr_float(c.attrs, contract::kAlpha, contract::kDefaultAlpha);
  const HostTensor* x = find_tensor(inputs, contract::kX);
  if (x == nullptr) throw std::invalid_argument("toy_scale: missing input 'x'");
  ReferenceOutput y;
  y.name = contract::kY;
  if (const auto sample = plan.find(contract::kY); sample != plan.end()) {  // a sampled check: those elements only
    y.indices = sample->second;
    for (int64_t i : y.indices) y.values.push_back(alpha * x->value(i));
  } else {
    for (double v : x->values()) y.values.push_back(alpha * v);
  }
  return {y};
}

}  // namespace

OPCERT_REGISTER_REFERENCE(contract::kOp, reference)

}  // namespace opcert::ops::toy_scale
