#include "opkit/collective.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "model/dtype.h"
#include "opkit/op_registry.h"

namespace opcert {
namespace {

constexpr std::array<std::pair<std::string_view, ReduceOp>, 4> kReduceOps{{
    {"sum", ReduceOp::kSum}, {"max", ReduceOp::kMax}, {"min", ReduceOp::kMin}, {"avg", ReduceOp::kAvg}}};

// Integers up to 2^bits are exact in the dtype.
int exact_integer_bits(opcert_dtype dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F32: return 24;
    case OPCERT_DTYPE_F16: return 11;
    case OPCERT_DTYPE_BF16: return 8;
    case OPCERT_DTYPE_I32: return 30;
    default: return 0;
  }
}

constexpr int64_t kSumValueLimit = 8;
constexpr int64_t kPlainValueLimit = 100;

double combine(ReduceOp op, double acc, double v) {
  switch (op) {
    case ReduceOp::kMax: return std::max(acc, v);
    case ReduceOp::kMin: return std::min(acc, v);
    default: return acc + v;
  }
}

const CollectiveTraits& traits_of(std::string_view op, const std::string& where) {
  const OpDescriptor* d = find_op(op);
  if (d == nullptr || d->collective == nullptr)
    throw std::invalid_argument(fmt::format("{}'{}' is not a collective", where, op));
  return *d->collective;
}

}  // namespace

std::string_view reduce_op_name(ReduceOp op) {
  for (const auto& [name, value] : kReduceOps)
    if (value == op) return name;
  return "?";
}

std::optional<ReduceOp> parse_reduce_op(std::string_view name) {
  for (const auto& [n, value] : kReduceOps)
    if (n == name) return value;
  return std::nullopt;
}

CollectiveSpec CollectiveSpec::of_op(std::string_view op) {
  CollectiveSpec s;
  s.traits = &traits_of(op, "");
  s.op = std::string(op);
  return s;
}

CollectiveSpec CollectiveSpec::of(const Case& c) {
  CollectiveSpec s;
  s.traits = &traits_of(c.op, c.id + ": ");
  s.op = c.op;
  const TensorSpec* x = c.find_input("x");
  if (x == nullptr || x->shape.size() != 1)
    throw std::invalid_argument(fmt::format("{}: a collective case needs a one-dimensional input 'x'", c.id));
  s.dtype = x->dtype;
  s.count = x->shape[0];
  const auto reduce = parse_reduce_op(attr_string(c.attrs, "reduce_op", "sum"));
  if (!reduce) throw std::invalid_argument(fmt::format("{}: unknown reduce_op", c.id));
  s.reduce = *reduce;
  s.root = attr_int(c.attrs, "root", 0);
  s.in_place = attr_int(c.attrs, "in_place", 0) != 0;
  return s;
}

int64_t CollectiveSpec::input_elements(int ranks) const { return traits->input_per_rank ? count * ranks : count; }

int64_t CollectiveSpec::output_elements(int ranks) const { return traits->output_per_rank ? count * ranks : count; }

int64_t CollectiveSpec::in_place_output_offset(int rank) const {
  if (traits->output_per_rank == traits->input_per_rank) return 0;
  return traits->output_per_rank ? -count * rank : count * rank;
}

std::optional<int> CollectiveSpec::root_rank(int ranks) const {
  const int64_t r = root < 0 ? root + ranks : root;
  if (r < 0 || r >= ranks) return std::nullopt;
  return static_cast<int>(r);
}

int64_t CollectiveSpec::size_units(int ranks) const {
  return traits->input_per_rank || traits->output_per_rank ? std::max(ranks, 1) : 1;
}

double slice_bus_factor(int ranks) {
  const double n = std::max(ranks, 1);
  return (n - 1) / n;
}

double reduced_value(const CollectiveSpec& spec, const RankValues& inputs, int64_t i) {
  double acc = inputs.value(0, i);
  for (int r = 1; r < inputs.ranks(); ++r) acc = combine(spec.reduce, acc, inputs.value(r, i));
  if (spec.reduce != ReduceOp::kAvg) return acc;
  const double n = inputs.ranks();
  return spec.dtype == OPCERT_DTYPE_I32 ? std::trunc(acc / n) : acc / n;
}

std::string collective_unrunnable(const CollectiveSpec& spec, int ranks) {
  if (spec.rooted() && !spec.root_rank(ranks))
    return fmt::format("root {} names no rank of a world of {}", spec.root, ranks);
  if (spec.reduces() && (spec.reduce == ReduceOp::kSum || spec.reduce == ReduceOp::kAvg) &&
      static_cast<int64_t>(ranks) > (int64_t{1} << exact_integer_bits(spec.dtype)))
    return fmt::format("{} sums over {} ranks cannot be kept exact (at most {} ranks)", dtype_name(spec.dtype), ranks,
                       int64_t{1} << exact_integer_bits(spec.dtype));
  return {};
}

int64_t collective_value_bound(const CollectiveSpec& spec, int ranks) {
  if (!spec.reduces() || spec.reduce == ReduceOp::kMax || spec.reduce == ReduceOp::kMin) return kPlainValueLimit;
  const int64_t exact = (int64_t{1} << exact_integer_bits(spec.dtype)) / std::max(ranks, 1);
  return std::clamp<int64_t>(exact, 1, kSumValueLimit);
}

}  // namespace opcert
