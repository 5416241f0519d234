#include "reports/report_writer.h"

namespace opcert {

std::vector<std::unique_ptr<ReportWriter>> all_report_writers() {
  std::vector<std::unique_ptr<ReportWriter>> writers;
  writers.push_back(make_json_report_writer());
  writers.push_back(make_junit_report_writer());
  writers.push_back(make_markdown_report_writer());
  return writers;
}

}  // namespace opcert
