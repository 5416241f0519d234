// The dashboard's pages as HTML text, from the model (docs/HISTORY.md, "The dashboard"). Tables
// are written here and read without scripts; the plots are drawn in the browser by
// assets/dashboard.js from the JSON each page carries, with the chart library beside it.
#pragma once

#include <string>

#include "dashboard/dashboard_model.h"

namespace opcert {

/// index.html: per lineage, the latest run's backend x op matrix coloured by status, its
/// regressions; then every run.
std::string overview_page(const DashboardModel& m);
/// runs/<id>.html: environment, backends, failures with repro lines, benchmarks, links to files.
std::string run_page(const DashboardModel& m, const StoredRun& run);
/// series/index.html: every series with its latest figures and regressions.
std::string series_index_page(const DashboardModel& m);
/// series/<slug>.html: time with the repetitions' range, throughput, ratio to the peer,
/// alignment and RMSE over the lineage's runs, regressions marked.
std::string series_page(const DashboardModel& m, const Series& s);
/// roofline.html: per lineage's latest bench, arithmetic intensity against achieved throughput
/// per backend, the platform's roofs drawn where its peaks are known.
std::string roofline_page(const DashboardModel& m);
/// collectives.html: bus bandwidth against message size per collective, dtype and implementation.
std::string collectives_page(const DashboardModel& m);

}  // namespace opcert
