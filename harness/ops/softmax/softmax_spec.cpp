// softmax over the last dimension, fp32 math (docs/OPS.md).
#include <fmt/format.h>

#include <stdexcept>

#include "ops/softmax/softmax.h"

namespace opcert::ops::softmax {

std::span<const ParamDef> parameters() {
  static const auto defs = with_common({
      {"dtype", nullptr, true},
      {"shape", nullptr},
      {"rows", nullptr},
      {"n", nullptr},
  });
  return defs;
}

void build_case(const json& params, Case& c) {
  const ParamReader p(names::kOp, parameters(), params);
  const auto common = read_common(p);
  require_random_fill(common, names::kOp);
  const auto dtype = p.dtype("dtype", {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});

  // Either a full shape, or rows x n.
  std::vector<int64_t> shape;
  if (p.given("shape")) {
    for (const char* name : {"rows", "n"})
      if (p.given(name)) throw std::invalid_argument(fmt::format("give either 'shape' or 'rows'/'n', not both ('{}')", name));
    shape = p.integers("shape");
    if (shape.empty()) throw std::invalid_argument("parameter 'shape' must have at least one dimension");
  } else {
    if (!p.given("n")) throw std::invalid_argument("missing parameter 'shape' (or 'n' with optional 'rows') for softmax");
    shape = {p.given("rows") ? p.integer("rows") : 1, p.integer("n")};
  }
  for (auto dim : shape)
    if (dim < 0) throw std::invalid_argument(fmt::format("softmax dimensions must be >= 0, not {}", dim));

  // Logits spanning e^16: rows with a clear maximum and a long tail.
  auto x = tensor(names::kX, dtype, shape);
  x.fill = uniform(-8, 8);
  c.inputs = {x};
  c.outputs = {tensor(names::kY, dtype, shape)};
  c.dtype = std::string(dtype_name(dtype));
  finish_case(c, common);
}

}  // namespace opcert::ops::softmax
