#include "golden/golden_case.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "loader/file_digest.h"
#include "model/dtype.h"

namespace opcert {
namespace {

std::string input_name(const std::string& operand) { return "input." + operand; }
std::string reference_name(const std::string& output, const char* part) { return fmt::format("reference.{}.{}", output, part); }

}  // namespace

SafetensorsWriter encode_golden_case(const Case& c, const std::string& suite, std::span<const HostTensor> inputs,
                                     std::span<const ReferenceOutput> reference) {
  SafetensorsWriter w;
  w.set_metadata("format", kGoldenCaseFormat);
  w.set_metadata("case", c.id);
  w.set_metadata("op", c.op);
  w.set_metadata("dtype", c.dtype);
  w.set_metadata("seed", std::to_string(c.seed));
  w.set_metadata("suite", suite);
  for (const HostTensor& t : inputs) {
    w.add({input_name(t.spec.name), std::string(safetensors_dtype(t.spec.dtype)), t.spec.shape, t.bytes});
    w.set_metadata(input_name(t.spec.name) + ".sha256", sha256_hex(t.bytes));
  }
  for (const ReferenceOutput& r : reference) {
    const TensorSpec* spec = c.find_output(r.name);
    if (spec == nullptr) throw std::invalid_argument(fmt::format("{}: the reference has no output '{}' in the case", c.id, r.name));
    // A whole output keeps its shape, so that a reader in Python sees the tensor it expects.
    const std::vector<int64_t> shape = r.indices.empty() ? spec->shape : std::vector<int64_t>{static_cast<int64_t>(r.values.size())};
    const auto add = [&](const char* part, const std::vector<double>& v) {
      if (!v.empty()) w.add_f64(reference_name(r.name, part), shape, v);
    };
    add("values", r.values);
    add("magnitude", r.magnitude);
    add("condition", r.condition);
    if (!r.indices.empty()) w.add_i64(reference_name(r.name, "indices"), r.indices);
  }
  return w;
}

std::vector<ReferenceOutput> decode_golden_case(const SafetensorsFile& file, const Case& c,
                                                std::span<const HostTensor> inputs, const SamplePlan& sample) {
  if (file.metadata_at("format") != kGoldenCaseFormat)
    throw std::runtime_error(fmt::format("the golden file's format is '{}', this opcert reads '{}'",
                                         file.metadata_at("format"), kGoldenCaseFormat));
  if (file.metadata_at("case") != c.id || file.metadata_at("op") != c.op)
    throw std::runtime_error(fmt::format("the golden file holds case '{}' ({}), not this one", file.metadata_at("case"), file.metadata_at("op")));
  if (file.metadata_at("seed") != std::to_string(c.seed))
    throw std::runtime_error(fmt::format("the golden file was exported with seed {}, this run's is {}", file.metadata_at("seed"), c.seed));

  for (const HostTensor& t : inputs) {
    const SafetensorsFile::View stored = file.at(input_name(t.spec.name));
    if (stored.dtype != safetensors_dtype(t.spec.dtype) || stored.shape != t.spec.shape)
      throw std::runtime_error(fmt::format("input '{}' is {} {} in the golden file, {} {} here", t.spec.name, stored.dtype,
                                           shape_text(stored.shape), dtype_name(t.spec.dtype), shape_text(t.spec.shape)));
    if (stored.bytes.size() != t.bytes.size() || !std::equal(stored.bytes.begin(), stored.bytes.end(), t.bytes.begin()))
      throw std::runtime_error(fmt::format("input '{}' generated here differs from the golden file's (sha256 {} here, {} there): "
                                           "this opcert fills inputs differently from the one that exported the set; export it again",
                                           t.spec.name, sha256_hex(t.bytes), file.metadata_at(input_name(t.spec.name) + ".sha256")));
  }

  std::vector<ReferenceOutput> out;
  for (const TensorSpec& spec : c.outputs) {
    ReferenceOutput r;
    r.name = spec.name;
    const std::string values = reference_name(spec.name, "values");
    if (!file.has(values)) throw std::runtime_error(fmt::format("the golden file has no reference for output '{}'", spec.name));
    r.values = file.f64(values);
    if (file.has(reference_name(spec.name, "magnitude"))) r.magnitude = file.f64(reference_name(spec.name, "magnitude"));
    if (file.has(reference_name(spec.name, "condition"))) r.condition = file.f64(reference_name(spec.name, "condition"));
    if (file.has(reference_name(spec.name, "indices"))) r.indices = file.i64(reference_name(spec.name, "indices"));

    const auto planned = sample.find(spec.name);
    const std::vector<int64_t> wanted = planned == sample.end() ? std::vector<int64_t>{} : planned->second;
    if (r.indices != wanted)
      throw std::runtime_error(fmt::format("output '{}': the golden file checks {} elements, this run samples {}: the case's "
                                           "sample differs from the exported one; export the set again",
                                           spec.name, r.indices.empty() ? "all" : std::to_string(r.indices.size()),
                                           wanted.empty() ? "none (checks all)" : std::to_string(wanted.size())));
    const std::size_t n = r.indices.empty() ? static_cast<std::size_t>(spec.numel()) : r.indices.size();
    if (r.values.size() != n || (!r.magnitude.empty() && r.magnitude.size() != n) || (!r.condition.empty() && r.condition.size() != n))
      throw std::runtime_error(fmt::format("output '{}': the golden file holds {} values for {} elements", spec.name, r.values.size(), n));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace opcert
