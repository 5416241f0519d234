#include "check/collectives/collective_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "model/dtype.h"

namespace opcert {
namespace {

constexpr std::array<std::pair<std::string_view, CollectiveKind>, 5> kKinds{{
    {"all_reduce", CollectiveKind::kAllReduce},
    {"all_gather", CollectiveKind::kAllGather},
    {"reduce_scatter", CollectiveKind::kReduceScatter},
    {"broadcast", CollectiveKind::kBroadcast},
    {"all_to_all", CollectiveKind::kAllToAll},
}};

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

}  // namespace

std::optional<CollectiveKind> collective_kind(std::string_view op) {
  for (const auto& [name, kind] : kKinds)
    if (name == op) return kind;
  return std::nullopt;
}

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

CollectiveSpec CollectiveSpec::of(const Case& c) {
  CollectiveSpec s;
  const auto kind = collective_kind(c.op);
  if (!kind) throw std::invalid_argument(fmt::format("'{}' is not a collective", c.op));
  s.kind = *kind;
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

int64_t CollectiveSpec::input_elements(int ranks) const {
  switch (kind) {
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll: return count * ranks;
    default: return count;
  }
}

int64_t CollectiveSpec::output_elements(int ranks) const {
  switch (kind) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kAllToAll: return count * ranks;
    default: return count;
  }
}

int64_t CollectiveSpec::in_place_output_offset(int rank) const {
  switch (kind) {
    case CollectiveKind::kAllGather: return -count * rank;
    case CollectiveKind::kReduceScatter: return count * rank;
    default: return 0;
  }
}

std::optional<int> CollectiveSpec::root_rank(int ranks) const {
  const int64_t r = root < 0 ? root + ranks : root;
  if (r < 0 || r >= ranks) return std::nullopt;
  return static_cast<int>(r);
}

std::string collective_unrunnable(const CollectiveSpec& spec, int ranks) {
  if (spec.kind == CollectiveKind::kBroadcast && !spec.root_rank(ranks))
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
