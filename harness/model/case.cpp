#include "model/case.h"

namespace opcert {
namespace {

const TensorSpec* find_spec(const std::vector<TensorSpec>& specs, const std::string& name) {
  for (const auto& s : specs)
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace

const TensorSpec* Case::find_input(const std::string& name) const { return find_spec(inputs, name); }
const TensorSpec* Case::find_output(const std::string& name) const { return find_spec(outputs, name); }

std::string_view fill_mode_name(FillMode mode) {
  switch (mode) {
    case FillMode::kExact: return "exact";
    case FillMode::kRounding: return "rounding";
    case FillMode::kRandom: break;
  }
  return "random";
}

}  // namespace opcert
