// The multiplexer every verb emits into: each event goes to every sink, in the order they were
// added. A sink that fails (a full disk) is reported once, on stderr, with its name and why, and
// takes no further events; the others go on, so nothing already measured is lost. Events may come
// from several threads (a rank's watchdog writes the reports of a lost job): each is delivered
// whole before the next.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "reports/result_sink.h"

namespace opcert {

class ResultStream {
 public:
  ResultStream() = default;
  ResultStream(const ResultStream&) = delete;
  ResultStream& operator=(const ResultStream&) = delete;

  void add(std::unique_ptr<ResultSink> sink);

  void run_started(const RunReport& header);
  void case_started(const CaseStart& start);
  void case_done(const CaseResult& result, bool peer);
  void benchmark_done(const BenchRecord& record);
  void note(const std::string& line);
  void run_finished(const RunReport& report);

  /// Whether a sink failed; its error was printed when it did.
  bool failed() const;

  /// A verb's exit code once its outputs count: an output that could not be written (a full disk)
  /// is a failure of the machine, so kExitOk becomes kExitCheckFailed; any other code stands.
  int exit_code_with_outputs(int exit_code) const;

  /// At the very end, after run_finished: says once on stderr that some outputs could not be
  /// written, where one failed, and returns exit_code_with_outputs(exit_code).
  int finish(int exit_code) const;

 private:
  template <class Event>
  void deliver(Event&& event);

  struct Entry {
    std::unique_ptr<ResultSink> sink;
    bool failed = false;
  };
  mutable std::recursive_mutex mutex_;  // a sink may report a note while an event is delivered
  std::vector<Entry> sinks_;
};

}  // namespace opcert
