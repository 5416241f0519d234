#include "opkit/param_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "model/checked_size.h"
#include "model/dtype.h"
#include "model/scalar_codec.h"

namespace opcert::opkit {
namespace {

// 2^22 output elements: above it the reference checks a sample unless the suite says otherwise.
constexpr int64_t kWholeCheckLimit = int64_t{1} << 22;
constexpr int64_t kDefaultSample = 65536;
// A prime, so planted specials do not line up with rows or blocks of power-of-two sizes.
constexpr int64_t kSpecialEvery = 97;

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

std::string type_name(const json& v) { return v.type_name(); }

// A magnitude that is large for the dtype yet whose square, and a sum of a few thousand of them,
// stays finite in fp32: catches arithmetic done in the narrow type (docs/SUITES.md).
double large_magnitude(opcert_dtype dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F16: return 4096.0;
    case OPCERT_DTYPE_F8_E4M3FN: return 448.0;
    case OPCERT_DTYPE_F8_E5M2: return 57344.0;
    case OPCERT_DTYPE_I8: return 127.0;
    case OPCERT_DTYPE_I32: return 1 << 30;
    default: return std::ldexp(1.0, 56);  // fp32, bf16, fp64
  }
}

double special_value(const std::string& name, opcert_dtype dtype) {
  if (name == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (name == "inf") return std::numeric_limits<double>::infinity();
  if (name == "-inf") return -std::numeric_limits<double>::infinity();
  if (name == "large") return large_magnitude(dtype);
  return -large_magnitude(dtype);  // "-large"
}

}  // namespace

std::vector<ParamDef> with_common(std::initializer_list<ParamDef> own) {
  std::vector<ParamDef> defs(own);
  defs.push_back({"fill", "random"});
  defs.push_back({"specials", json::array()});
  defs.push_back({"sample", nullptr});
  return defs;
}

std::string join(std::span<const std::string> items) { return fmt::format("{}", fmt::join(items, ", ")); }

ParamReader::ParamReader(std::string_view op, std::span<const ParamDef> defs, const json& params)
    : op_(op), defs_(defs), params_(params) {
  if (!params_.is_object()) fail(fmt::format("params must be an object, not {}", type_name(params_)));
  for (const auto& item : params_.items()) {
    const std::string name = item.key();  // not a structured binding: clang 14 cannot capture one
    if (std::none_of(defs_.begin(), defs_.end(), [&](const ParamDef& d) { return d.name == name; })) {
      std::vector<std::string> known;
      for (const auto& d : defs_) known.push_back(d.name);
      fail(fmt::format("unknown parameter '{}' for {}; known: {}", name, op_, join(known)));
    }
  }
}

const ParamDef& ParamReader::def(const std::string& name) const {
  for (const auto& d : defs_)
    if (d.name == name) return d;
  throw std::logic_error("case builder for " + op_ + " reads undeclared parameter " + name);
}

bool ParamReader::given(const std::string& name) const {
  def(name);
  return params_.contains(name);
}

const json& ParamReader::value(const std::string& name) const {
  const auto& d = def(name);
  if (auto it = params_.find(name); it != params_.end()) return *it;
  if (d.required) fail(fmt::format("missing required parameter '{}' for {}", name, op_));
  return d.fallback;
}

int64_t ParamReader::integer(const std::string& name) const {
  const auto& v = value(name);
  if (!v.is_number_integer()) fail(fmt::format("parameter '{}' must be an integer, not {}", name, v.dump()));
  return v.get<int64_t>();
}

int64_t ParamReader::size(const std::string& name) const {
  const int64_t v = integer(name);
  if (v < 0) fail(fmt::format("parameter '{}' must be >= 0, not {}", name, v));
  return v;
}

double ParamReader::number(const std::string& name) const {
  const auto& v = value(name);
  if (!v.is_number()) fail(fmt::format("parameter '{}' must be a number, not {}", name, v.dump()));
  return v.get<double>();
}

bool ParamReader::boolean(const std::string& name) const {
  const auto& v = value(name);
  if (!v.is_boolean()) fail(fmt::format("parameter '{}' must be true or false, not {}", name, v.dump()));
  return v.get<bool>();
}

std::string ParamReader::choice(const std::string& name, std::initializer_list<std::string_view> allowed) const {
  const auto& v = value(name);
  if (v.is_string() && std::find(allowed.begin(), allowed.end(), v.get<std::string>()) != allowed.end())
    return v.get<std::string>();
  fail(fmt::format("parameter '{}' must be one of {}, not {}", name, fmt::join(allowed, ", "), v.dump()));
}

opcert_dtype ParamReader::dtype(const std::string& name, std::initializer_list<opcert_dtype> allowed) const {
  const auto& v = value(name);
  std::vector<std::string_view> names;
  for (auto d : allowed) names.push_back(dtype_name(d));
  if (v.is_string()) {
    std::string text = v.get<std::string>();
    if (text == "e4m3") text = "fp8_e4m3fn";
    if (text == "e5m2") text = "fp8_e5m2";
    if (auto d = parse_dtype(text); d && std::find(allowed.begin(), allowed.end(), *d) != allowed.end()) return *d;
  }
  fail(fmt::format("parameter '{}' must be a dtype among {}, not {}", name, fmt::join(names, ", "), v.dump()));
}

std::vector<int64_t> ParamReader::integers(const std::string& name) const {
  const auto& v = value(name);
  std::vector<int64_t> out;
  if (v.is_array()) {
    for (const auto& e : v) {
      if (!e.is_number_integer()) break;
      out.push_back(e.get<int64_t>());
    }
    if (out.size() == v.size()) return out;
  }
  fail(fmt::format("parameter '{}' must be a list of integers, not {}", name, v.dump()));
}

std::vector<std::string> ParamReader::strings(const std::string& name) const {
  const auto& v = value(name);
  std::vector<std::string> out;
  if (v.is_array()) {
    for (const auto& e : v) {
      if (!e.is_string()) break;
      out.push_back(e.get<std::string>());
    }
    if (out.size() == v.size()) return out;
  }
  fail(fmt::format("parameter '{}' must be a list of strings, not {}", name, v.dump()));
}

CommonParams read_common(const ParamReader& p) {
  CommonParams common;
  const auto fill = p.choice("fill", {"random", "exact", "rounding"});
  common.fill = fill == "exact" ? FillMode::kExact : fill == "rounding" ? FillMode::kRounding : FillMode::kRandom;
  for (const auto& s : p.strings("specials")) {
    if (s != "nan" && s != "inf" && s != "-inf" && s != "large" && s != "-large")
      fail(fmt::format("parameter 'specials' holds '{}'; known: nan, inf, -inf, large, -large", s));
    common.specials.push_back(s);
  }
  if (common.fill == FillMode::kRounding && !common.specials.empty())
    fail("parameter 'specials' cannot go with fill 'rounding', whose values are placed on rounding ties; "
         "drop one of them");
  if (p.given("sample")) {
    common.sample = p.integer("sample");
    if (*common.sample < 0) fail("parameter 'sample' must be >= 0 (0 checks every element)");
  }
  return common;
}

void require_random_fill(const CommonParams& common, std::string_view op) {
  if (common.fill == FillMode::kExact)
    fail(fmt::format("fill 'exact' is not defined for {}: its result is not a finite sum of products "
                     "of small integers; use fill 'random'",
                     op));
  if (common.fill == FillMode::kRounding)
    fail(fmt::format("fill 'rounding' is not defined for {}: a conforming computation of it carries fp32 noise, so "
                     "its exact results cannot be placed on rounding ties (docs/TOLERANCES.md, \"Rounding\"); the "
                     "rounding checks judge its random cases; use fill 'random'",
                     op));
}


void allow_specials(const CommonParams& common, std::initializer_list<std::string_view> allowed, std::string_view why) {
  for (const auto& s : common.specials)
    if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
      fail(fmt::format("parameter 'specials' holds '{}', which {}; allowed here: {}", s, why, fmt::join(allowed, ", ")));
}

void finish_case(Case& c, const CommonParams& common) {
  c.fill_mode = common.fill;
  if (common.fill != FillMode::kRandom) c.tags.emplace_back(fill_mode_name(common.fill));
  if (!common.specials.empty()) {
    if (c.inputs.empty()) fail("parameter 'specials' needs an input to plant them in");
    auto& first = c.inputs.front();
    // NaN and infinities go into the first half of the rows only (the last dim is a row): the
    // other rows' outputs stay finite, so an output that is NaN everywhere fails (docs/SUITES.md).
    const bool non_finite = std::any_of(common.specials.begin(), common.specials.end(),
                                        [](const std::string& s) { return !s.ends_with("large"); });
    const int64_t columns = first.shape.empty() ? 1 : std::max<int64_t>(first.shape.back(), 1);
    const int64_t rows = first.numel() / columns;
    if (non_finite && rows >= 2) first.fill.special_span = rows / 2 * columns;
    const int64_t n = first.fill.special_span > 0 ? first.fill.special_span : first.numel();
    // At least one planted value even in a tiny tensor.
    first.fill.special_every = n >= 2 * kSpecialEvery ? kSpecialEvery : std::max<int64_t>(1, n / 2);
    for (const auto& s : common.specials) {
      first.fill.specials.push_back(special_value(s, first.dtype));
      const std::string tag = s.starts_with('-') ? s.substr(1) : s;
      if (std::find(c.tags.begin(), c.tags.end(), tag) == c.tags.end()) c.tags.push_back(tag);
    }
  }
  int64_t largest = 0;
  for (const auto& o : c.outputs) largest = std::max(largest, o.numel());
  c.sample_elements = common.sample ? *common.sample : (largest > kWholeCheckLimit ? kDefaultSample : 0);
}

TensorSpec tensor(std::string name, opcert_dtype dtype, std::vector<int64_t> shape) {
  require_operand_fits(name, shape, dtype);  // before any builder counts its elements
  TensorSpec t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

FillSpec uniform(double lo, double hi) {
  FillSpec f;
  f.kind = FillSpec::Kind::kRandom;
  f.lo = lo;
  f.hi = hi;
  return f;
}

FillSpec integers(double lo, double hi, double density) {
  FillSpec f;
  f.kind = FillSpec::Kind::kExact;
  f.lo = lo;
  f.hi = hi;
  f.density = density;
  return f;
}

FillSpec grid(double lo, double hi, double step) {
  FillSpec f = integers(lo, hi, 1.0);
  f.step = step;
  return f;
}

FillSpec values(std::vector<double> v) {
  FillSpec f;
  f.kind = FillSpec::Kind::kValues;
  f.values = std::move(v);
  return f;
}

int significand_bits(opcert_dtype dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_BF16: return 8;
    case OPCERT_DTYPE_F16: return 11;
    case OPCERT_DTYPE_F32: return 24;
    case OPCERT_DTYPE_F64: return 53;
    case OPCERT_DTYPE_F8_E4M3FN: return 4;
    case OPCERT_DTYPE_F8_E5M2: return 3;
    case OPCERT_DTYPE_I8: return 7;
    default: return 31;  // int32
  }
}

double exact_dot_density(int64_t k, opcert_dtype out) {
  // Integers up to L = 2^bits are exact in `out` (and in the fp32 accumulator, bits <= 24).
  // Each non-zero product is at most 4 and the bias at most 2, so up to (L - 2) / 4 non-zero
  // products per row are safe. The number of non-zeros in a row of A is Binomial(k, density);
  // a mean of (L - 2) / 10 puts the safe count 6+ standard deviations away (Poisson tail < 1e-9).
  const double limit = std::ldexp(1.0, std::min(significand_bits(out), 24));
  if (k <= 0) return 1.0;
  return std::min(1.0, (limit - 2.0) / 10.0 / static_cast<double>(k));
}

int64_t rounding_dot_range(int64_t k, opcert_dtype in, opcert_dtype out, int accumulator_bits) {
  const double terms = static_cast<double>(std::max<int64_t>(k, 1));
  // Inputs: integers up to 2^p of `in` are exact (int8: its range).
  const double exact_in = in == OPCERT_DTYPE_I8 ? 127.0 : std::ldexp(1.0, std::min(significand_bits(in), 24));
  // Every partial sum below the accumulator's exact range and out's largest value: k r^2 + r.
  const double limit = std::min(std::ldexp(1.0, accumulator_bits), max_finite(out));
  const double safe = std::floor(std::sqrt(limit / (terms + 1.0)));
  // A typical result (about sqrt(k) r^2 / 3) near 2^(p+1), where out's spacing is 2 or 4: ties are frequent.
  const double tie_rich = std::ceil(std::sqrt(3.0 * std::ldexp(1.0, significand_bits(out) + 1) / std::sqrt(terms)));
  return static_cast<int64_t>(std::max(1.0, std::min({exact_in, safe, tie_rich})));
}

std::string declared_dtype(opcert_dtype in, opcert_dtype out) {
  if (in == out) return std::string(dtype_name(out));
  return std::string(dtype_short_name(in)) + "->" + std::string(dtype_short_name(out));
}

std::string declared_dtype(opcert_dtype a, opcert_dtype b, opcert_dtype out) {
  if (a == b) return declared_dtype(a, out);
  return std::string(dtype_short_name(a)) + "x" + std::string(dtype_short_name(b)) + "->" + std::string(dtype_short_name(out));
}

std::vector<double> power_of_two_scales(int64_t n) {
  static constexpr double kPattern[] = {0.5, 1.0, 2.0, 0.25, 1.0, 0.5, 2.0};
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = kPattern[i % 7];
  return v;
}

}  // namespace opcert::opkit
