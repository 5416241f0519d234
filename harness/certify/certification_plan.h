// Certification plans (suites/certify/*.json, docs/CERTIFY.md): which suites a certificate runs,
// under which seeds, and which statuses of the certified backend's results fail it.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "model/status.h"

namespace opcert {

struct PlannedSuite {
  std::string suite;  ///< a suite name (suites/...) or file
  uint64_t seed = 1;
};

struct CertificationPlan {
  std::string name;
  std::string description;
  std::vector<PlannedSuite> suites;
  std::set<Status> fail_statuses;
  std::string path;    ///< the file read
  std::string sha256;  ///< of the file
};

/// The plan named `name_or_path`: a file, or a name under suites/certify/ on the suite search path.
/// Throws InputError naming the file and field for every problem, and the plans there are for an
/// unknown name.
CertificationPlan load_certification_plan(const std::string& name_or_path);

}  // namespace opcert
