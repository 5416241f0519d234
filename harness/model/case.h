// One conformance case: an op called with fully specified operands and attributes, and the
// seed its inputs are generated from. Built from a suite entry by the op's case builder
// (harness/ops/<op>/), run on a backend, compared with the reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/attr.h"
#include "model/tensor_spec.h"

namespace opcert {

/// How a case's inputs are drawn (docs/SUITES.md): random values; small integers whose every
/// partial result is exact; or values whose exact results fall between and on the output dtype's
/// rounding boundaries, so that only round-to-nearest-even gives the expected bits.
enum class FillMode { kRandom, kExact, kRounding };

struct Case {
  std::string suite;   // "smoke", "sweeps/gemm", a file path
  std::string id;      // unique within the suite: "gemm.bf16.m128n256k512.nk.bias"
  std::string op;      // catalogue op (harness/ops/<op>/)
  /// What reports and platform tolerance overrides call its dtypes, as the op declares it:
  /// "bf16", "e4m3->bf16", "int8->int32" (opkit::declared_dtype).
  std::string dtype;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  Attrs attrs;
  FillMode fill_mode = FillMode::kRandom;
  uint64_t seed = 0;   // the run's seed; inputs are keyed by (seed, id, tensor, element)
  /// Above this many output elements the reference is computed on a sample of them.
  int64_t sample_elements = 0;  // 0: check every element
  std::vector<std::string> tags;  // "edge", "model:llama3-8b", "nan", ...

  const TensorSpec* find_input(const std::string& name) const;
  const TensorSpec* find_output(const std::string& name) const;
};

std::string_view fill_mode_name(FillMode mode);

}  // namespace opcert
