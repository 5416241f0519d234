// `opcert dashboard`: the results store as a static site that opens from disk, with no server and
// no network (docs/HISTORY.md, "The dashboard").
#pragma once

#include <filesystem>
#include <string>

#include "history/history_store.h"

namespace opcert {

struct DashboardSummary {
  size_t runs = 0, series = 0, pages = 0, regressions = 0;  ///< regressions: series regressed in their lineage's latest run
};

/// The chart library the site is drawn with: $OPCERT_CHARTJS, else the file libjs-chart.js
/// installs (found when opcert was configured).
std::filesystem::path chart_library_path();

/// Writes the site into `out_dir`: index.html, series/, runs/, roofline.html, collectives.html and
/// assets/ (the chart library copied beside the pages). A directory that holds files but no earlier
/// dashboard is refused (InputError), so nothing of the user's is overwritten; an earlier
/// dashboard's pages are replaced whole. InputError when the chart library is missing.
DashboardSummary write_dashboard(HistoryStore& store, const std::filesystem::path& out_dir);

}  // namespace opcert
