// rope: rotary position embedding of q (and k), split-half or interleaved, partial rotary dim,
// optional explicit positions (docs/OPS.md).
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "opkit/case_size.h"
#include "ops/rope/rope.h"

namespace opcert::ops::rope {
namespace {

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

// Positions scattered over [0, P) by a fixed stride (a prime, so all of [0, P) is reached once
// there are P tokens), the last token at P - 1: the table's last row is always read.
std::vector<double> scattered_positions(int64_t n, int64_t p) {
  std::vector<double> pos(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) pos[static_cast<std::size_t>(i)] = static_cast<double>((i * 7919 + 13) % p);
  if (n > 0) pos.back() = static_cast<double>(p - 1);
  return pos;
}

// Explicit positions are int32 (docs/OPS.md): every one of [0, P) must be one.
constexpr int64_t kMaxPosition = int64_t{1} << 31;

}  // namespace

std::span<const ParamDef> parameters() {
  static const auto defs = with_common({
      {"dtype", nullptr, true},
      {"layout", "bshd"},
      {"b", nullptr},
      {"s", nullptr},
      {"t", nullptr},
      {"hq", nullptr, true},
      {"hk", nullptr},
      {"d", nullptr, true},
      {"rotary_dim", nullptr},
      {"style", "split_half"},
      {"positions", false},
      {"max_position", nullptr},
      {"base", 10000.0},
  });
  return defs;
}

void build_case(const json& params, Case& c) {
  const ParamReader p(names::kOp, parameters(), params);
  const auto common = read_common(p);
  if (common.fill == FillMode::kExact)
    fail("fill 'exact' is not defined for rope; use fill 'random', or 'rounding' (integer tables, so each output is "
         "exact in fp32 and falls between or on the output dtype's rounding boundaries)");
  const bool rounding = common.fill == FillMode::kRounding;
  const auto dtype = p.dtype("dtype", {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  const auto layout = p.choice("layout", {"bshd", "thd"});
  const auto style = p.choice("style", {"split_half", "interleaved"});
  const int64_t hq = p.integer("hq");
  const int64_t hk = p.given("hk") ? p.integer("hk") : hq;
  const int64_t d = p.integer("d");
  const int64_t r = p.given("rotary_dim") ? p.integer("rotary_dim") : d;
  if (hq < 1) fail(fmt::format("parameter 'hq' must be >= 1, not {}", hq));
  if (hk < 0) fail(fmt::format("parameter 'hk' must be >= 0 (0: no k), not {}", hk));
  if (d < 2) fail(fmt::format("parameter 'd' must be >= 2, not {}", d));
  if (r < 2 || r > d || r % 2 != 0) fail(fmt::format("parameter 'rotary_dim' must be even and in [2, d={}], not {}", d, r));
  const double base = p.number("base");
  if (!(base > 1.0)) fail(fmt::format("parameter 'base' must be > 1, not {}", base));

  // Token shape: [B, S] or [T].
  std::vector<int64_t> tokens;
  if (layout == "bshd") {
    if (p.given("t")) fail("parameter 't' is for layout 'thd'; layout 'bshd' takes b and s");
    if (!p.given("s")) fail("missing required parameter 's' for rope with layout 'bshd'");
    tokens = {p.given("b") ? p.integer("b") : 1, p.integer("s")};
  } else {
    for (const char* name : {"b", "s"})
      if (p.given(name)) fail(fmt::format("parameter '{}' is for layout 'bshd'; layout 'thd' takes t", name));
    if (!p.given("t")) fail("missing required parameter 't' for rope with layout 'thd'");
    tokens = {p.integer("t")};
  }
  for (auto n : tokens)
    if (n < 0) fail(fmt::format("token counts must be >= 0, not {}", n));
  const int64_t seq = tokens.back();  // s, or t: the largest implicit position + 1
  const bool explicit_positions = p.boolean("positions");
  const int64_t max_position = p.given("max_position") ? p.integer("max_position") : std::max<int64_t>(seq, 1);
  if (max_position < 1) fail(fmt::format("parameter 'max_position' must be >= 1, not {}", max_position));
  if (explicit_positions && max_position > kMaxPosition)
    fail(fmt::format("parameter 'max_position' must be at most 2^31 with explicit positions (int32 positions in [0, P)), not {}",
                     max_position));
  if (!explicit_positions && max_position < seq)
    fail(fmt::format("parameter 'max_position' ({}) must be >= the sequence length ({}) without explicit positions", max_position, seq));

  auto head_shape = [&](int64_t heads) {
    auto shape = tokens;
    shape.push_back(heads);
    shape.push_back(d);
    return shape;
  };
  // Rounding: x1 c - x2 s of integers, exact in fp32, then rounded once into the dtype.
  const auto range = static_cast<double>(rounding ? rounding_dot_range(2, dtype, dtype) : 0);
  const FillSpec operand = rounding ? integers(-range, range, 1.0) : uniform(-1, 1);
  auto q = tensor(names::kQ, dtype, head_shape(hq));
  q.fill = operand;
  c.inputs = {q};
  if (hk > 0) {
    auto k = tensor(names::kK, dtype, head_shape(hk));
    k.fill = operand;
    c.inputs.push_back(k);
  }
  auto cos = tensor(names::kCos, OPCERT_DTYPE_F32, {max_position, r / 2});
  auto sin = tensor(names::kSin, OPCERT_DTYPE_F32, {max_position, r / 2});
  cos.fill.kind = FillSpec::Kind::kRopeCos;
  sin.fill.kind = FillSpec::Kind::kRopeSin;
  cos.fill.base = sin.fill.base = base;
  if (rounding) cos.fill = sin.fill = operand;  // the contract reads the tables as given
  c.inputs.push_back(cos);
  c.inputs.push_back(sin);
  if (explicit_positions) {
    auto pos = tensor(names::kPositions, OPCERT_DTYPE_I32, tokens);
    pos.fill = values(scattered_positions(listed_count(pos), max_position));
    c.inputs.push_back(pos);
  }
  c.outputs = {tensor(names::kQOut, dtype, q.shape)};
  if (hk > 0) c.outputs.push_back(tensor(names::kKOut, dtype, head_shape(hk)));
  if (p.given("style")) c.attrs[names::kStyle] = style;
  if (p.given("rotary_dim")) c.attrs[names::kRotaryDim] = r;
  c.dtype = std::string(dtype_name(dtype));
  finish_case(c, common);
}

}  // namespace opcert::ops::rope
