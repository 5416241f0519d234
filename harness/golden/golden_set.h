// A golden set: a folder of golden case files (golden/golden_case.h) and manifest.json, which
// names each exported suite (by name, file sha256 and seed) and each case's file, size and sha256.
// `opcert golden export` writes one; `opcert run --golden DIR` checks backends against it on a
// machine without LibTorch (docs/CERTIFY.md, "Golden sets").
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/case.h"
#include "model/host_tensor.h"
#include "opkit/reference_output.h"

namespace opcert {

inline constexpr const char* kGoldenSetFormat = "opcert-golden-set";
inline constexpr int kGoldenSetVersion = 1;

struct GoldenCaseEntry {
  std::string id;
  std::string op;
  std::string file;  ///< relative to the set's folder
  std::string sha256;
  uint64_t bytes = 0;
  bool sampled = false;
  /// Why the reference could not be computed at export ("" when it was): the file is then absent
  /// and a run gives the case the same ERROR a run with LibTorch would.
  std::string error;
};

/// The cases of one suite under one seed.
struct GoldenSuiteEntry {
  std::string suite;  ///< as named at export ("smoke", "sweeps/gemm", a file's path)
  std::string suite_sha256;
  uint64_t seed = 1;
  std::vector<GoldenCaseEntry> cases;
};

struct GoldenManifest {
  std::string opcert_version;
  std::string opcert_commit;
  std::string reference;  ///< what computed the references: "LibTorch 2.x (fp64, CPU)"
  std::string created;    ///< ISO 8601 UTC
  std::vector<GoldenSuiteEntry> suites;

  nlohmann::ordered_json to_json() const;
  /// Throws InputError naming `source` and the field for a manifest this opcert cannot read.
  static GoldenManifest from_json(const nlohmann::json& doc, const std::string& source);
};

/// The file name of a case's golden file: its id with any character other than letters, digits,
/// '.', '_' and '-' written as %XX, so that two ids never share a file.
std::string golden_file_name(const std::string& case_id);

class GoldenSet {
 public:
  /// Reads DIR/manifest.json. Throws InputError ("--golden '<dir>': ...") when it is missing or
  /// malformed.
  static GoldenSet open(const std::filesystem::path& dir);

  const std::filesystem::path& dir() const { return dir_; }
  const GoldenManifest& manifest() const { return manifest_; }
  /// SHA-256 of manifest.json, which pins every case file through their sha256: what a report
  /// records as the reference it was judged against.
  const std::string& manifest_sha256() const { return manifest_sha256_; }

  /// The exported cases of the suite with file digest `suite_sha256` under `seed`. Throws
  /// InputError naming what the set holds when it has none, or only another version of the suite.
  const GoldenSuiteEntry& require(const std::string& suite, const std::string& suite_sha256, uint64_t seed) const;

  /// The golden reference of `c` from `entry`: its file read, its sha256 checked against the
  /// manifest, and decode_golden_case's checks. Throws std::runtime_error saying what is wrong (a
  /// case not exported, a changed file, inputs or a sample that differ).
  std::vector<ReferenceOutput> reference(const GoldenSuiteEntry& entry, const Case& c, std::span<const HostTensor> inputs,
                                         const SamplePlan& sample) const;

 private:
  std::filesystem::path dir_;
  GoldenManifest manifest_;
  std::string manifest_sha256_;
};

}  // namespace opcert
