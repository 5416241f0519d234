#include "golden/golden_export.h"

#include <fmt/format.h>


#include "check/fill.h"
#include "check/sample_plan.h"
#include "golden/golden_case.h"
#include "loader/file_digest.h"
#include "opkit/op_registry.h"
#include "reference/reference.h"
#include "session/planning/job_list.h"

namespace opcert {
namespace {

// Bytes a safetensors header takes per tensor, generously (name, dtype, shape, offsets), and the
// metadata's.
constexpr uint64_t kHeaderBytesPerTensor = 160;
constexpr uint64_t kMetadataBytes = 1024;

}  // namespace

std::vector<std::size_t> golden_case_indices(const Suite& suite, const std::string& filter) {
  std::vector<std::size_t> out;
  for (std::size_t i : filter_cases(suite.cases, filter)) {
    const OpDescriptor* op = find_op(suite.cases[i].op);
    if (op != nullptr && op->family != OpFamily::kCollective) out.push_back(i);
  }
  return out;
}

GoldenExportSuite select_golden_cases(Suite suite, uint64_t seed, const std::string& filter) {
  std::vector<std::size_t> cases = golden_case_indices(suite, filter);
  return {std::move(suite), seed, std::move(cases)};
}

uint64_t golden_case_bytes_bound(const Case& c) {
  uint64_t bytes = kMetadataBytes;
  for (const TensorSpec& t : c.inputs) bytes += t.bytes() + kHeaderBytesPerTensor + 80;  // 80: its sha256 in the metadata
  const SamplePlan plan = case_sample_plan(c);
  for (const TensorSpec& t : c.outputs) {
    const auto sampled = plan.find(t.name);
    const auto checked = static_cast<uint64_t>(sampled == plan.end() ? t.numel() : static_cast<int64_t>(sampled->second.size()));
    bytes += checked * 8 * (sampled == plan.end() ? 3 : 4) + 4 * kHeaderBytesPerTensor;
  }
  return bytes;
}

GoldenManifest export_golden_set(std::span<const GoldenExportSuite> suites, const std::filesystem::path& dir,
                                 const GoldenProvenance& provenance, const std::function<void(const GoldenCaseEntry&)>& on_case) {
  GoldenManifest manifest;
  manifest.opcert_version = provenance.opcert_version;
  manifest.opcert_commit = provenance.opcert_commit;
  manifest.reference = provenance.reference;
  manifest.created = provenance.created;
  for (const GoldenExportSuite& s : suites) {
    GoldenSuiteEntry entry{s.suite.name, s.suite.sha256, s.seed, {}};
    const std::string folder = suite_folder_name(s.suite.name, s.seed);
    std::filesystem::create_directories(dir / folder);
    for (std::size_t i : s.cases) {
      const Case& c = s.suite.cases[i];
      GoldenCaseEntry e;
      e.id = c.id;
      e.op = c.op;
      std::vector<std::byte> bytes;
      SamplePlan plan;
      try {
        std::vector<HostTensor> inputs;
        for (const TensorSpec& spec : c.inputs) inputs.push_back(generate_input(spec, c.seed, c.id));
        // The sample a run draws (session/execution/prepared_case.cpp): the same plan, the same indices.
        plan = case_sample_plan(c);
        const std::vector<ReferenceOutput> reference = compute_reference(c, inputs, plan);
        bytes = encode_golden_case(c, s.suite.name, inputs, reference).serialize();
      } catch (const std::exception& ex) {
        e.error = ex.what();  // what a run's check would have said of this case's reference
      }
      if (e.error.empty()) {
        e.file = folder + "/" + golden_file_name(c.id);
        e.bytes = bytes.size();
        e.sha256 = sha256_hex(bytes);
        e.sampled = !plan.empty();
        write_file_atomically(dir / e.file, bytes);
      }
      on_case(e);
      entry.cases.push_back(std::move(e));
    }
    manifest.suites.push_back(std::move(entry));
  }
  const std::string text = manifest.to_json().dump(2) + "\n";
  write_file_atomically(dir / "manifest.json", std::as_bytes(std::span(text.data(), text.size())));
  return manifest;
}

}  // namespace opcert
