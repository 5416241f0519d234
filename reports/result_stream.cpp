#include "reports/result_stream.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "model/exit_codes.h"

namespace opcert {

void ResultStream::add(std::unique_ptr<ResultSink> sink) {
  const std::lock_guard lock(mutex_);
  sinks_.push_back({std::move(sink), false});
}

template <class Event>
void ResultStream::deliver(Event&& event) {
  const std::lock_guard lock(mutex_);
  for (Entry& e : sinks_) {
    if (e.failed) continue;
    try {
      event(*e.sink);
    } catch (const std::exception& ex) {
      e.failed = true;
      fmt::print(stderr, "opcert: error: {}: {}; the other outputs go on\n", e.sink->name(), ex.what());
      std::fflush(stderr);
    }
  }
}

void ResultStream::run_started(const RunReport& header) {
  deliver([&](ResultSink& s) { s.run_started(header); });
}
void ResultStream::case_started(const CaseStart& start) {
  deliver([&](ResultSink& s) { s.case_started(start); });
}
void ResultStream::case_done(const CaseResult& result, bool peer) {
  deliver([&](ResultSink& s) { s.case_done(result, peer); });
}
void ResultStream::benchmark_done(const BenchRecord& record) {
  deliver([&](ResultSink& s) { s.benchmark_done(record); });
}
void ResultStream::note(const std::string& line) {
  deliver([&](ResultSink& s) { s.note(line); });
}
void ResultStream::run_finished(const RunReport& report) {
  deliver([&](ResultSink& s) { s.run_finished(report); });
}

bool ResultStream::failed() const {
  const std::lock_guard lock(mutex_);
  for (const Entry& e : sinks_)
    if (e.failed) return true;
  return false;
}

int ResultStream::exit_code_with_outputs(int exit_code) const {
  return failed() && exit_code == kExitOk ? kExitCheckFailed : exit_code;
}

int ResultStream::finish(int exit_code) const {
  if (failed()) fmt::print(stderr, "opcert: error: some outputs could not be written (see above)\n");
  return exit_code_with_outputs(exit_code);
}

}  // namespace opcert
