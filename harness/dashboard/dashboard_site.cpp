#include "dashboard/dashboard_site.h"

#include <fmt/format.h>

#include <cstdlib>

#include "dashboard/dashboard_assets.h"
#include "dashboard/dashboard_model.h"
#include "dashboard/dashboard_pages.h"
#include "model/input_error.h"
#include "model/text_file.h"
#include "reports/report_writer.h"
#include "util/remove_tree.h"

namespace opcert {
namespace {

// Marks a directory as a dashboard opcert wrote, so that a second render may replace it.
constexpr const char* kMarker = ".opcert-dashboard";

void prepare_directory(const std::filesystem::path& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec))
      throw InputError(fmt::format("--out '{}' is a file: give a directory for the dashboard", out.string()));
    const bool empty = fs::directory_iterator(out, ec) == fs::directory_iterator();
    if (!empty && !fs::exists(out / kMarker, ec))
      throw InputError(fmt::format("--out '{}' holds files that are not an opcert dashboard: give a new or empty "
                                   "directory",
                                   out.string()));
    for (const char* stale : {"runs", "series", "assets"}) remove_tree(out / stale);
  }
  for (const char* sub : {"runs", "series", "assets"}) {
    fs::create_directories(out / sub, ec);
    if (ec) throw InputError(fmt::format("cannot create '{}': {}", (out / sub).string(), ec.message()));
  }
  write_file_atomically(out / kMarker, "opcert dashboard: `opcert dashboard` replaces this directory's pages\n");
}

}  // namespace

std::filesystem::path chart_library_path() {
  if (const char* env = std::getenv("OPCERT_CHARTJS"); env && *env) return env;
  return OPCERT_CHARTJS_PATH;
}

DashboardSummary write_dashboard(HistoryStore& store, const std::filesystem::path& out_dir) {
  const std::filesystem::path chart = chart_library_path();
  const std::optional<std::string> chart_js = read_text_file(chart);
  if (!chart_js)
    throw InputError(fmt::format("the chart library '{}' is missing: install libjs-chart.js (apt-get install "
                                 "libjs-chart.js), or name a Chart.js UMD file in OPCERT_CHARTJS",
                                 chart.string()));
  const DashboardModel model = gather_dashboard(store);
  prepare_directory(out_dir);
  DashboardSummary summary;
  const auto page = [&](const std::filesystem::path& rel, const std::string& html) {
    write_file_atomically(out_dir / rel, html);
    ++summary.pages;
  };
  write_file_atomically(out_dir / "assets" / "chart.min.js", *chart_js);
  write_file_atomically(out_dir / "assets" / "dashboard.js", std::string(dashboard_js()));
  write_file_atomically(out_dir / "assets" / "dashboard.css", std::string(dashboard_css()));
  page("index.html", overview_page(model));
  page("roofline.html", roofline_page(model));
  page("collectives.html", collectives_page(model));
  page(std::filesystem::path("series") / "index.html", series_index_page(model));
  for (const StoredRun& run : model.runs) page(std::filesystem::path("runs") / fmt::format("{}.html", run.id), run_page(model, run));
  for (const Series& s : model.series) {
    page(std::filesystem::path("series") / (s.slug + ".html"), series_page(model, s));
    if (s.regressed_last) ++summary.regressions;
  }
  summary.runs = model.runs.size();
  summary.series = model.series.size();
  return summary;
}

}  // namespace opcert
