// What the shipped suites catch of the mutant backend (backends/mutants; docs/TOLERANCES.md,
// "Detection power"): read from the results of runs of every mutant ("mutants.<op>.<slip>") and its
// correct twin ("mutants.<op>.correct") on the same cases. A mutant is caught by a case where it did
// not pass while its twin passed, so that the case tells the slip apart and nothing else; a twin
// that does not pass is a false alarm of the suite or of the tolerance model.
#pragma once

#include <string>
#include <vector>

#include "reports/run_report.h"

namespace opcert {

/// One case that caught a mutant.
struct CatchingCase {
  std::string suite;
  std::string case_id;
  std::string status;   // FAILED, CRASHED, ...
  std::string message;  // the first failing check
};

struct MutantDetection {
  std::string key;   // mutants.<op>.<slip>
  std::string op;
  std::string slip;
  int judged = 0;    // cases the mutant ran and its twin PASSED: the cases that could catch it
  std::vector<CatchingCase> caught_by;
  bool caught() const { return !caught_by.empty(); }
};

/// Whether a mutant's result catches it (against a PASSED twin): FAILED or CRASHED. ERROR, TIMEOUT
/// and MISTRUSTED say nothing about the slip (a slow naive mutant may time out where its twin did not).
bool catches(Status mutant);

/// A twin that did not pass: the case, or the tolerance, rejects correct code.
struct TwinAlarm {
  std::string key;
  std::string suite;
  std::string case_id;
  std::string status;
  std::string message;
};

struct DetectionSummary {
  std::vector<MutantDetection> mutants;  // by op, then slip
  std::vector<TwinAlarm> twin_alarms;
  int twin_results = 0;                  // twin results judged (PASSED or not, SKIPPED left out)
  std::vector<std::string> suites;       // in the order they were added

  int caught() const;
  /// Caught mutants over all mutants; 0 when there are none.
  double rate() const;
  /// Every mutant caught, no twin alarm, and at least one mutant judged.
  bool clean() const;
};

/// The prefix of every key of the mutant backend, and the slip its twins carry.
inline constexpr const char* kMutantKeyPrefix = "mutants.";
inline constexpr const char* kTwinSlip = "correct";

/// Gathers the results of runs of the mutant backend, suite by suite.
class DetectionTally {
 public:
  /// A mutant the runs must judge: listed (as escaped, judged 0) even where no result names it, so
  /// that a suite that lost an op's cases cannot make its mutants vanish from the verdict.
  void expect(const std::string& key);
  /// Every result of `run` (a run of suite `suite`) whose key is the mutant backend's. Across ranks
  /// a case counts once: caught when any rank's result did not pass, an alarm when any twin's did not.
  void add(const RunReport& run, const std::string& suite);
  DetectionSummary summary() const;

 private:
  struct Outcome {
    std::string suite, case_id, key, status_text, message;
    Status status = Status::kError;
    bool passed() const { return status == Status::kPassed; }
    bool skipped() const { return status == Status::kSkipped; }
  };
  std::vector<Outcome> outcomes_;
  std::vector<std::string> suites_;
  std::vector<std::string> expected_;
};

}  // namespace opcert
