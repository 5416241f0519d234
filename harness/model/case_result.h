// Everything measured for one case on one implementation: the record written to results.jsonl
// and gathered into every report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/case.h"
#include "model/device_tag.h"
#include "model/phase_times.h"
#include "model/skip_reason.h"
#include "model/status.h"

namespace opcert {

/// The element with the largest error relative to its bound.
struct WorstElement {
  int64_t index = -1;      // flat row-major index into the output
  double got = 0.0;
  double expected = 0.0;
  double bound = 0.0;      // the allowed |got - expected| at that element
};

/// The rounding checks of one output (docs/TOLERANCES.md, "Rounding").
struct RoundingMetrics {
  /// Elements whose correctly rounded value is known: their exact value lies farther from every
  /// rounding boundary than a conforming computation's error can reach. Each must hold that value.
  int64_t decisive = 0;
  int64_t misrounded = 0;        // of those, elements that do not
  /// The misrounded element farthest from its correctly rounded value (the first of equals): how
  /// many ulps of the output dtype it is from that value, and from the exact value in spacings there
  /// (schema 2.7; 0 with none misrounded).
  int64_t worst_misrounded_ulp = 0;
  double worst_misrounded_exact_ulp = 0.0;
  /// The test of biased rounding: the mean signed error, in spacings of the output dtype, of the
  /// elements whose error is the final rounding's (a conforming computation's own error is
  /// under a sixteenth of a spacing there).
  int64_t bias_elements = 0;
  double bias_ulp = 0.0;         // the mean error in the direction below; <0 shrinks the values
  std::string bias_direction;    // "magnitude" (toward/away from zero) or "value" (down/up)
  double bias_z = 0.0;           // standard errors by which |bias| exceeds what conforming code reaches
  int64_t bias_batches = 0;      // the batch means the standard error came from; 0 in reports before 2.5
  bool biased = false;           // z beyond the threshold: FAILED, "biased rounding"

  /// The one-sided chance of an excess of bias_z standard errors under rounding to nearest: Student's
  /// t with bias_batches - 1 degrees of freedom (the normal tail where bias_batches is unknown). The
  /// report's bias_confidence is 1 minus it; 1 when the test did not run.
  double bias_chance() const;
};

/// Comparison of one output tensor with the reference (docs/TOLERANCES.md defines each field).
struct TensorMetrics {
  std::string name;
  int64_t checked = 0;            // elements compared (all, or the sample)
  int64_t total = 0;              // elements in the tensor
  /// The output has no element (total 0): its shape is empty, as the op's contract allows (M = 0,
  /// an empty varlen batch). The one case where checked = 0 passes.
  bool empty = false;
  int64_t mismatches = 0;         // elements out of bound, NaN/Inf mismatches included
  int64_t nan_inf_mismatches = 0;
  double max_abs = 0.0;
  double max_rel = 0.0;
  double mean_abs = 0.0;
  double rmse = 0.0;
  double cosine = 1.0;
  int64_t max_ulp = 0;            // in the output dtype; 0 for integer outputs' exact match
  double error_ratio = 0.0;       // max |got - expected| / bound: < 1 passes
  /// The RMS of the elements' bounds, where a bound in the output's units judges them (schema 2.7):
  /// the scale the alignment ratio is floored at (docs/TOLERANCES.md); 0 for exact and code rules.
  double bound_rms = 0.0;
  double zero_fraction = 0.0;     // fraction of exact zeros in the output (MISTRUSTED check)
  WorstElement worst;
  RoundingMetrics rounding;
};

struct CaseResult {
  std::string backend;
  std::string impl_key;
  std::string suite;
  std::string case_id;
  std::string op;
  std::string dtype;        // the case's declared dtype (Case::dtype): reports, tolerance overrides
  Status status = Status::kError;
  std::string message;      // why: the skip reason, the error, the first failing check
  /// SKIPPED only: the class of the skip (model/skip_reason.h), "" otherwise and in reports before 2.7.
  std::string skip_reason;
  std::vector<TensorMetrics> metrics;
  bool sampled = false;     // the reference was computed on a sample of the outputs
  bool out_of_bounds_write = false;
  double duration_ms = 0.0; // wall time of the case in the worker, reference included
  std::string repro;        // one command line that reruns exactly this case
  /// The alignment figure: this implementation's RMSE on the primary output over the peer's on
  /// the same inputs; absent when the peer did not run the case or both errors are zero.
  std::optional<double> peer_rmse;
  std::optional<double> alignment_ratio;
  /// The rank that measured this result: collectives across ranks, and compute cases of a run
  /// spread over the ranks of an MPI job (--devices); absent otherwise.
  std::optional<int> rank;
  /// The device that measured it, when the run chose devices (--devices); absent otherwise.
  std::optional<DeviceTag> device;
  /// Where the job's time went (schema 2.8): every answer of a worker and every collective step
  /// carries it; absent for a result the runner made itself (crash, timeout, an unreadable answer)
  /// and in older reports. Timing only: never part of what must reproduce.
  std::optional<PhaseTimes> phases;
};

/// The result of (backend, implementation, case) before anything is measured: the names filled in
/// from the case, status ERROR and no metrics. Every result starts here.
CaseResult blank_result(const std::string& backend, const std::string& impl_key, const Case& c);

}  // namespace opcert
