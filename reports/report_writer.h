// The report writers behind one interface: each writes one file of the output directory,
// atomically (a temporary name, then rename), so a killed run never leaves half a report.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "reports/run_report.h"

namespace opcert {

class ReportWriter {
 public:
  virtual ~ReportWriter() = default;
  /// The file name this writer produces in the output directory ("report.json", ...).
  virtual std::string file_name() const = 0;
  /// Writes the whole file atomically; throws std::runtime_error naming the path on failure.
  virtual void write(const RunReport& report, const std::filesystem::path& out_dir) const = 0;
};

std::unique_ptr<ReportWriter> make_json_report_writer();     // report.json (reports/schema/report.schema.json)
std::unique_ptr<ReportWriter> make_junit_report_writer();    // junit.xml
std::unique_ptr<ReportWriter> make_markdown_report_writer(); // summary.md

/// All of the above, in that order.
std::vector<std::unique_ptr<ReportWriter>> all_report_writers();

/// Writes `text` to `path` through a temporary file in the same directory and a rename.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace opcert
