// What every op's case builder shares. A builder declares its parameters (name, default) in one
// table; ParamReader checks a suite entry against that table and reads typed values; finish_case
// applies the parameters every op has (fill, specials, sample). The same tables give the generated
// case ids (harness/check/case_id.h), so an id names exactly the parameters that differ from their
// defaults, in the table's order.
#pragma once

#include <opcert/backend_abi.h>

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/case.h"
#include "model/dtype.h"

namespace opcert {

/// One parameter of an op. `fallback` is its default; null with `required` false means
/// "optional, no fixed default" (the builder derives it, e.g. skv = sq).
struct ParamDef {
  std::string name;
  nlohmann::json fallback;
  bool required = false;
  bool always_in_id = false;  // named in generated ids even at its default (e.g. an fp8 GEMM's dtypes)
};

}  // namespace opcert

namespace opcert::opkit {

using nlohmann::json;

/// The op's own parameters followed by the common ones (fill, specials, sample).
std::vector<ParamDef> with_common(std::initializer_list<ParamDef> own);

/// Reads typed parameters; every error is a std::invalid_argument naming the parameter.
class ParamReader {
 public:
  /// Throws when `params` is not an object or holds a name the table does not know.
  ParamReader(std::string_view op, std::span<const ParamDef> defs, const json& params);

  bool given(const std::string& name) const;
  int64_t integer(const std::string& name) const;
  /// An integer >= 0 (a size).
  int64_t size(const std::string& name) const;
  double number(const std::string& name) const;
  bool boolean(const std::string& name) const;
  /// One of `allowed`.
  std::string choice(const std::string& name, std::initializer_list<std::string_view> allowed) const;
  /// A dtype name (aliases "e4m3", "e5m2" accepted) that must be one of `allowed`.
  opcert_dtype dtype(const std::string& name, std::initializer_list<opcert_dtype> allowed) const;
  std::vector<int64_t> integers(const std::string& name) const;
  std::vector<std::string> strings(const std::string& name) const;

  /// The value given, else the default; throws for a required parameter that is missing.
  const json& value(const std::string& name) const;

 private:
  const ParamDef& def(const std::string& name) const;
  std::string op_;
  std::span<const ParamDef> defs_;
  const json& params_;
};

/// The parameters every op accepts.
struct CommonParams {
  FillMode fill = FillMode::kRandom;
  std::vector<std::string> specials;  // "nan", "inf", "-inf", "large", "-large"
  std::optional<int64_t> sample;
};

/// The common parameters; specials with fill "rounding" are refused (its values sit on ties).
CommonParams read_common(const ParamReader& p);

/// Rejects fill=exact and fill=rounding for an op whose results are transcendental (exponentials,
/// square roots, sines): no small-integer fill makes them exact.
void require_random_fill(const CommonParams& common, std::string_view op);

/// Rejects special values the first input cannot carry or the op's contract excludes.
void allow_specials(const CommonParams& common, std::initializer_list<std::string_view> allowed,
                    std::string_view why);

/// Applies fill mode, specials (planted in the first input) and sample_elements, and adds the
/// tags "exact" or "rounding" and one per special.
void finish_case(Case& c, const CommonParams& common);

/// A tensor operand (an output, or an input whose fill is set afterwards); throws SizeError when it
/// does not fit kMaxCaseBytes (model/checked_size.h).
TensorSpec tensor(std::string name, opcert_dtype dtype, std::vector<int64_t> shape);
FillSpec uniform(double lo, double hi);
FillSpec integers(double lo, double hi, double density);
FillSpec values(std::vector<double> v);
/// Multiples of `step` in [lo, hi] (fill "rounding": half-integer quotients).
FillSpec grid(double lo, double hi, double step);

/// Significant bits of a dtype's significand (bf16 8, fp16 11, fp32 24; int32 31).
int significand_bits(opcert_dtype dtype);

/// Density of the first factor's non-zeros for an exact dot-product fill with integers in [-2, 2]
/// over a reduction of length k (docs/SUITES.md): keeps every partial sum, plus a bias in [-2, 2],
/// exactly representable in `out`.
double exact_dot_density(int64_t k, opcert_dtype out);

/// The integers [-r, r] of a dot-product fill "rounding" (docs/SUITES.md): its results land between
/// and on the rounding boundaries of `out` (most above 2^p, where out's spacing exceeds 1), while
/// every input is exact in `in`, and every partial sum of k products plus a bias of the same range
/// stays an integer below 2^accumulator_bits (exact in the accumulator) and below out's largest value.
int64_t rounding_dot_range(int64_t k, opcert_dtype in, opcert_dtype out, int accumulator_bits = 24);

/// Powers of two from {2, 1, 1/2, 1/4}, a fixed pattern over n elements: exact scale factors.
std::vector<double> power_of_two_scales(int64_t n);

/// "a, b, c".
std::string join(std::span<const std::string> items);

/// How reports and tolerance overrides name a case's dtypes (Case::dtype): the dtype's name for an
/// op that keeps its dtype ("bf16"), "<in>-><out>" for one that converts ("bf16->int8"), and
/// "<a>x<b>-><out>" when two inputs differ ("e4m3xe5m2->bf16"); fp8 by its short name.
std::string declared_dtype(opcert_dtype in, opcert_dtype out);
std::string declared_dtype(opcert_dtype a, opcert_dtype b, opcert_dtype out);

}  // namespace opcert::opkit
