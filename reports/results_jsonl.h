// results.jsonl: one CaseResult per line (model/case_result_json.h), written as each case finishes
// and flushed at once, so a killed run keeps every result it measured (DESIGN.md section 6).
#pragma once

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <vector>

#include "model/case_result.h"

namespace opcert {

class ResultsJsonl {
 public:
  static constexpr const char* kFileName = "results.jsonl";

  enum class Mode {
    kTruncate,  // a new run: start an empty file
    kAppend,    // a resumed run: keep the lines there; a partial last line (a killed writer) is cut off
  };

  /// Opens <out_dir>/results.jsonl, creating out_dir if needed; throws std::runtime_error naming
  /// the path on failure.
  ResultsJsonl(const std::filesystem::path& out_dir, Mode mode);
  ~ResultsJsonl();
  ResultsJsonl(const ResultsJsonl&) = delete;
  ResultsJsonl& operator=(const ResultsJsonl&) = delete;

  /// Writes one line and flushes it to the OS. Safe to call from several threads.
  /// Throws std::runtime_error naming the path when the write fails (a full disk).
  void append(const CaseResult& result);

  const std::filesystem::path& path() const { return path_; }
  /// Lines this stream has written (not counting those already there in append mode).
  size_t written() const;

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  mutable std::mutex mutex_;
  size_t written_ = 0;
};

/// Replaces <out_dir>/results.jsonl, at once (a rename), by `results` in their order: the end of a
/// run whose results were streamed as they finished, in whatever order, puts them in the run's.
/// Throws std::runtime_error naming the path when it cannot.
void rewrite_results_jsonl(const std::filesystem::path& out_dir, const std::vector<CaseResult>& results);

/// Reads a results.jsonl back. Blank lines are ignored. A last line without its newline that does
/// not parse is the trace of a killed writer: it is dropped and *dropped_partial_line (when given)
/// is set. Any other bad line throws std::runtime_error "<path>:<line>: <why>".
std::vector<CaseResult> read_results_jsonl(const std::filesystem::path& path, bool* dropped_partial_line = nullptr);

}  // namespace opcert
