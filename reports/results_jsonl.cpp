#include "reports/results_jsonl.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "model/case_result_json.h"
#include "reports/jsonl_lines.h"
#include "reports/number_format.h"
#include "reports/report_writer.h"
#include "model/text_file.h"

namespace opcert {
namespace {

std::string read_whole_file(const std::filesystem::path& path) {
  std::optional<std::string> text = read_text_file(path);
  if (!text) throw std::runtime_error("cannot read " + path.string() + ": " + std::strerror(errno));
  return std::move(*text);
}

// In append mode a line cut short by a killed writer would glue itself to the next result; the
// partial record was lost anyway, so it is cut off before appending.
void drop_partial_last_line(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  const std::string text = read_whole_file(path);
  if (text.empty() || text.back() == '\n') return;
  const auto last_newline = text.rfind('\n');
  const size_t keep = last_newline == std::string::npos ? 0 : last_newline + 1;
  std::filesystem::resize_file(path, keep, ec);
  if (ec) throw std::runtime_error("cannot repair " + path.string() + ": " + ec.message());
}

}  // namespace

ResultsJsonl::ResultsJsonl(const std::filesystem::path& out_dir, Mode mode) : path_(out_dir / kFileName) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw std::runtime_error("cannot create " + out_dir.string() + ": " + ec.message());
  if (mode == Mode::kAppend) drop_partial_last_line(path_);
  file_ = std::fopen(path_.c_str(), mode == Mode::kAppend ? "ab" : "wb");
  if (file_ == nullptr) throw std::runtime_error("cannot open " + path_.string() + ": " + std::strerror(errno));
}

ResultsJsonl::~ResultsJsonl() {
  if (file_ != nullptr) std::fclose(file_);
}

void ResultsJsonl::append(const CaseResult& result) {
  const std::string line = dump_json(to_json(result)) + "\n";
  std::lock_guard lock(mutex_);
  // One fwrite per line, then the flush the contract promises: the OS has the line when append returns.
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
  ++written_;
}

size_t ResultsJsonl::written() const {
  std::lock_guard lock(mutex_);
  return written_;
}

void rewrite_results_jsonl(const std::filesystem::path& out_dir, const std::vector<CaseResult>& results) {
  std::string text;
  for (const CaseResult& r : results) text += dump_json(to_json(r)) + "\n";
  write_file_atomically(out_dir / ResultsJsonl::kFileName, text);
}

std::vector<CaseResult> read_results_jsonl(const std::filesystem::path& path, bool* dropped_partial_line) {
  std::vector<CaseResult> results;
  for (const JsonlLine& line : read_jsonl_lines(path, dropped_partial_line)) {
    try {
      results.push_back(case_result_from_json(line.doc));
    } catch (const std::exception& e) {
      throw std::runtime_error(path.string() + ":" + std::to_string(line.number) + ": " + e.what());
    }
  }
  return results;
}

}  // namespace opcert
