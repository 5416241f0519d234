// A certification bundle (docs/CERTIFY.md): the reports of every suite of a plan run on one
// backend, a manifest of what was certified where and by which opcert, a summary, the plan file
// itself, SHA256SUMS over all of it and, with a key, an Ed25519 signature of SHA256SUMS.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "certify/certification_plan.h"

namespace opcert {

inline constexpr const char* kManifestFile = "manifest.json";

/// One suite of the plan as it ran.
struct CertifiedSuite {
  PlannedSuite planned;
  std::string suite_path;    ///< the file read
  std::string suite_sha256;
  std::string report_dir;    ///< relative to the bundle: reports/<suite>.seed<N>
  int exit_code = 0;
};

struct BundleInputs {
  CertificationPlan plan;
  std::string backend;       ///< the certified backend
  std::vector<CertifiedSuite> suites;
  std::string started_at, finished_at;
  std::string abi_version;   ///< "MAJOR.MINOR" of this opcert
  std::string sign_key;      ///< an Ed25519 private key (PEM) to sign with; "" for none
  std::string command_line;
  std::set<std::string> plan_ops;  ///< every op the plan's suites have cases of
  /// The backend's first device: where a run without --devices ran (its results carry no device).
  std::string first_device_name;
};

/// What a bundle says of itself.
struct Certificate {
  bool certified = false;
  int failing_results = 0;   ///< results of the backend whose status the plan fails
  int results = 0;
  std::string reason;        ///< why not certified, in one line
  /// The (op, dtype) pairs of the plan, and those certified: run, none of their results failing.
  std::size_t plan_pairs = 0;
  std::size_t certified_pairs = 0;
};

/// Writes manifest.json, plan.json and summary.md beside the reports already in `bundle`, then
/// SHA256SUMS and (with a key) SHA256SUMS.sig. Throws InputError for an unusable key.
Certificate write_bundle(const std::filesystem::path& bundle, const BundleInputs& inputs);

}  // namespace opcert
