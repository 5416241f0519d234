// One output of the result stream (DESIGN.md section 1; after nvbench's printers): a file, or the
// terminal. Every verb emits the same events into one ResultStream, which hands each to every
// sink; a new output is a new sink, and no verb wires files itself. Each event has a default that
// ignores it, so a sink overrides only what it writes.
#pragma once

#include <string>

#include "model/bench_record.h"
#include "model/case_result.h"
#include "reports/run_report.h"

namespace opcert {

/// A job about to run: enough for a progress display.
struct CaseStart {
  const std::string& backend;
  const std::string& impl_key;
  const std::string& case_id;
};

class ResultSink {
 public:
  virtual ~ResultSink() = default;

  /// What the sink writes, for messages ("results.jsonl", "the progress display").
  virtual std::string name() const = 0;

  /// The run's header: command line, suite, seed, platform, peer, backends, start time; no results.
  virtual void run_started(const RunReport& header) { (void)header; }
  virtual void case_started(const CaseStart& start) { (void)start; }
  /// A result as it is measured; `peer` when it is the peer's (recorded, never gating).
  virtual void case_done(const CaseResult& result, bool peer) { (void)result, (void)peer; }
  /// A benchmark's figures as soon as they are known.
  virtual void benchmark_done(const BenchRecord& record) { (void)record; }
  /// A line for the person watching (a worker restarted, a rank stood down).
  virtual void note(const std::string& line) { (void)line; }
  /// The whole run: every result (with alignment filled in), every benchmark, the exit code, the
  /// environment, whether it was complete. Sinks that write a file at the end write it here.
  virtual void run_finished(const RunReport& report) { (void)report; }
};

}  // namespace opcert
