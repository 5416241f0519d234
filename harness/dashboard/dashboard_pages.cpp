#include "dashboard/dashboard_pages.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "dashboard/html_text.h"
#include "history/run_listing.h"
#include "util/duration.h"

namespace opcert {
namespace {

using nlohmann::json;

const StoredRun& run_of(const DashboardModel& m, int64_t id) {
  return *std::find_if(m.runs.begin(), m.runs.end(), [&](const StoredRun& r) { return r.id == id; });
}

std::string optional_number(const std::optional<double>& v, const char* format = "{:.4g}") {
  return v ? fmt::format(fmt::runtime(format), *v) : "-";
}

std::string time_text(const std::optional<double>& seconds) { return seconds ? format_duration(*seconds) : "-"; }

std::string status_class(const std::string& status) {
  if (status == "PASSED") return "st-pass";
  if (status == "SKIPPED" || status.empty()) return "st-skip";
  if (status == "MISTRUSTED") return "st-warn";
  return "st-fail";
}

// Where a result of a run with --devices ran: "rank 1 device 0 on node7", "" for an untagged one.
std::string device_cell(const CaseResult& r) {
  if (!r.device) return "";
  return device_label(r.device, r.rank) + (r.device->host.empty() ? "" : " on " + r.device->host);
}

// The devices a run's results ran on (--devices): each one's identity and its results by status;
// "" for a run without device tags.
std::string devices_table(const RunReport& report) {
  std::map<std::tuple<int, std::string, int>, std::pair<const CaseResult*, std::map<std::string, int>>> devices;
  for (const CaseResult& r : report.results)
    if (r.device) {
      auto& d = devices[{r.rank.value_or(0), r.device->host, r.device->index}];
      d.first = &r;
      ++d.second[std::string(status_name(r.status))];
    }
  if (devices.empty()) return "";
  std::string rows;
  for (const auto& [key, d] : devices) {
    const DeviceTag& tag = *d.first->device;
    std::string counts;
    for (const auto& [status, n] : d.second)
      counts += fmt::format("{}<span class=\"{}\">{} {}</span>", counts.empty() ? "" : ", ", status_class(status), n, status);
    rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                        html_escape(device_label(d.first->device, d.first->rank)), html_escape(tag.host),
                        html_escape(tag.name), html_escape(identity_text(tag.uuid)), html_escape(identity_text(tag.pci_bus_id)),
                        counts);
  }
  return "<h2>Devices</h2><table class=\"list\"><thead><tr><th>device</th><th>host</th><th>name</th><th>UUID</th>"
         "<th>PCI bus</th><th>results</th></tr></thead><tbody>\n" +
         rows + "</tbody></table>\n";
}

// The lineage's latest run with a benchmark that `wanted` takes: a later run without one (a
// filtered or interrupted bench) does not hide what an earlier one measured.
template <class Wanted>
const StoredRun* latest_with(const DashboardModel& m, const Lineage& lineage, Wanted wanted) {
  for (auto id = lineage.run_ids.rbegin(); id != lineage.run_ids.rend(); ++id) {
    const auto& benchmarks = m.reports.at(*id).benchmarks;
    if (std::any_of(benchmarks.begin(), benchmarks.end(), wanted)) return &run_of(m, *id);
  }
  return nullptr;
}

// file:// and the path, every byte outside the unreserved set and "/" percent-encoded (a path may
// hold '#', '?', '%' or spaces).
std::string file_url(const std::filesystem::path& path) {
  std::string url = "file://";
  for (const unsigned char ch : path.string()) {
    if (std::isalnum(ch) || ch == '/' || ch == '-' || ch == '_' || ch == '.' || ch == '~')
      url += static_cast<char>(ch);
    else
      url += fmt::format("%{:02X}", ch);
  }
  return url;
}

std::string run_link(const std::string& root, const StoredRun& r) {
  return fmt::format("<a href=\"{}runs/{}.html\">run {}</a>", root, r.id, r.id);
}

std::string layout(const std::string& title, const std::string& root, const std::string& body, const json* data) {
  std::string out = fmt::format(R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{0} · opcert dashboard</title>
<link rel="stylesheet" href="{1}assets/dashboard.css">
</head>
<body>
<header><a class="brand" href="{1}index.html">opcert</a>
<nav><a href="{1}index.html">Overview</a><a href="{1}series/index.html">Series</a><a href="{1}roofline.html">Roofline</a><a href="{1}collectives.html">Collectives</a></nav></header>
<main>
<h1>{0}</h1>
)",
                                html_escape(title), root);
  out += body;
  out += "</main>\n<footer><p id=\"render-status\">Tables only: this page has no plots.</p></footer>\n";
  if (data) {
    out += fmt::format("<script id=\"opcert-data\" type=\"application/json\">{}</script>\n", json_for_script(*data));
    out += fmt::format("<script src=\"{0}assets/chart.min.js\"></script>\n<script src=\"{0}assets/dashboard.js\"></script>\n",
                       root);
  }
  out += "</body>\n</html>\n";
  return out;
}

// Status counts of (backend, op) in a run: its results, else its benchmarks' checks.
std::map<std::pair<std::string, std::string>, std::map<std::string, int>> status_matrix(const RunReport& report) {
  std::map<std::pair<std::string, std::string>, std::map<std::string, int>> cells;
  for (const CaseResult& r : report.results) ++cells[{r.backend, r.op}][std::string(status_name(r.status))];
  if (report.results.empty())
    for (const BenchRecord& b : report.benchmarks)
      if (!b.copy_baseline) ++cells[{b.backend, b.op}][b.check ? std::string(status_name(*b.check)) : "ERROR"];
  return cells;
}

// `run_page`: where the cells link, relative to the page ("runs/7.html" from the overview, "" on
// the run's own page, whose anchors they name).
std::string matrix_table(const DashboardModel& m, const StoredRun& run, const std::string& run_page) {
  const auto cells = status_matrix(m.reports.at(run.id));
  std::set<std::string> backends, ops;
  for (const auto& [key, counts] : cells) {
    backends.insert(key.first);
    ops.insert(key.second);
  }
  if (cells.empty()) return "<p>This run has no results.</p>\n";
  std::string out = "<table class=\"matrix\"><thead><tr><th>backend \\ op</th>";
  for (const std::string& op : ops) out += "<th>" + html_escape(op) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const std::string& b : backends) {
    out += "<tr><th>" + html_escape(b) + "</th>";
    for (const std::string& op : ops) {
      const auto it = cells.find({b, op});
      if (it == cells.end()) {
        out += "<td class=\"st-none\">-</td>";
        continue;
      }
      int passed = 0, skipped = 0, bad = 0, total = 0;
      for (const auto& [status, n] : it->second) {
        total += n;
        if (status == "PASSED")
          passed += n;
        else if (status == "SKIPPED")
          skipped += n;
        else
          bad += n;
      }
      const std::string cls = bad > 0 ? "st-fail" : (passed > 0 ? "st-pass" : "st-skip");
      std::string text = fmt::format("{}/{} passed", passed, total);
      if (bad) text += fmt::format(", {} failed", bad);
      if (skipped) text += fmt::format(", {} skipped", skipped);
      out += fmt::format("<td class=\"{}\"><a href=\"{}#{}\">{}</a></td>", cls, run_page, html_escape(b + "-" + op), text);
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string runs_rows(const DashboardModel& m, const std::string& root) {
  std::string out =
      "<table class=\"list\"><thead><tr><th>run</th><th>started</th><th>kind</th><th>suite</th><th>platform</th>"
      "<th>device</th><th>passed</th><th>failed</th><th>skipped</th><th>benchmarks</th><th>exit</th><th>commit</th>"
      "</tr></thead><tbody>\n";
  for (auto it = m.runs.rbegin(); it != m.runs.rend(); ++it) {
    const StoredRun& r = *it;
    out += fmt::format(
        "<tr><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>\n",
        run_link(root, r), html_escape(r.started_at), r.complete ? "" : " (incomplete)", html_escape(r.kind),
        html_escape(r.suite), html_escape(r.platform.empty() ? "-" : r.platform), html_escape(stored_run_device(r)),
        r.passed, r.failed ? "st-fail" : "", r.failed, r.skipped, r.benchmarks, r.exit_code,
        html_escape(short_commit(r.project_commit.empty() ? r.opcert_commit : r.project_commit)));
  }
  return out + "</tbody></table>\n";
}

// Where a benchmark goes on the roofline page: by arithmetic intensity (FLOP/byte) when its work
// model counts FLOPs; by the bytes it moves against the memory roof when it counts none (a
// memory-bound op's intensity is 0, which no log axis shows); nowhere without a time or bytes.
// Copy baselines and collectives are not the op's work (collectives have their own page).
enum class RooflineKind { kIntensity, kBandwidth, kUnplaced };

std::optional<RooflineKind> placed_as(const BenchRecord& b) {
  if (b.copy_baseline || b.collective) return std::nullopt;
  if (!b.seconds || *b.seconds <= 0 || b.bytes <= 0) return RooflineKind::kUnplaced;
  return b.flops > 0 ? RooflineKind::kIntensity : RooflineKind::kBandwidth;
}

// The roofs of the platforms the points ran on, from the peaks kept with their run: each dtype's
// TFLOP/s (with `compute`) and the memory bandwidth.
json platform_roofs(const json& peaks, const std::set<std::string>& platforms, bool compute) {
  json roofs = json::array();
  for (const std::string& p : platforms) {
    if (!peaks.contains(p)) continue;
    const json& pk = peaks[p];
    const json tflops = pk.value("tflops", json::object());  // named: items() would outlive a temporary
    if (compute)
      for (const auto& [dtype, figure] : tflops.items())
        roofs.push_back({{"label", fmt::format("{} {} peak", p, dtype)}, {"tflops", figure}});
    if (pk.contains("memory_gbps") && pk["memory_gbps"].is_number())
      roofs.push_back({{"label", fmt::format("{} memory", p)}, {"memory_gbps", pk["memory_gbps"]}});
  }
  return roofs;
}

// The sentence naming a run's benchmarks that the roofline cannot place; "" when there is none.
std::string unplaced_note(const RunReport& report) {
  std::vector<std::string> unplaced;
  for (const BenchRecord& b : report.benchmarks)
    if (placed_as(b) == RooflineKind::kUnplaced) unplaced.push_back(b.case_id + " · " + b.impl_key);
  if (unplaced.empty()) return "";
  return "<p class=\"note\">Not placed, with no time or no bytes in its work model: " +
         html_escape(fmt::format("{}", fmt::join(unplaced, ", "))) + ".</p>\n";
}

}  // namespace

std::string overview_page(const DashboardModel& m) {
  std::string body = fmt::format("<p class=\"meta\">{} runs in {}; {} series.</p>\n", m.runs.size(),
                                 html_escape(m.store), m.series.size());
  if (m.runs.empty()) body += "<p>The store holds no runs yet: add some with <code>opcert history add</code>.</p>\n";
  for (size_t li = 0; li < m.lineages.size(); ++li) {
    const Lineage& lineage = m.lineages[li];
    const StoredRun& latest = run_of(m, lineage.run_ids.back());
    body += fmt::format("<section class=\"lineage\"><h2>{}</h2>\n<p class=\"meta\">{} runs; the latest, {} of {}{}.</p>\n",
                        html_escape(lineage.label), lineage.run_ids.size(), run_link("", latest),
                        html_escape(latest.started_at),
                        latest.project_commit.empty() ? "" : ", commit " + html_escape(short_commit(latest.project_commit)));
    body += matrix_table(m, latest, fmt::format("runs/{}.html", latest.id));
    std::string regressed;
    for (const Series& s : m.series)
      if (s.lineage == li && s.regressed_last)
        regressed += fmt::format("<li class=\"regression\"><a href=\"series/{}.html\">{} · {}</a>: {}</li>\n", s.slug,
                                 html_escape(s.case_id), html_escape(s.impl_key),
                                 html_escape(s.points.back().regressions.front()));
    body += regressed.empty() ? "<p>No regression in the latest run against the one before.</p>\n"
                              : "<h3>Regressions in the latest run</h3><ul>\n" + regressed + "</ul>\n";
    body += "</section>\n";
  }
  for (const std::string& note : m.notes) body += "<p class=\"note\">" + html_escape(note) + "</p>\n";
  body += "<h2>Runs</h2>\n" + runs_rows(m, "");
  return layout("Overview", "", body, nullptr);
}

std::string run_page(const DashboardModel& m, const StoredRun& run) {
  const RunReport& report = m.reports.at(run.id);
  std::string body = fmt::format(
      "<p class=\"meta\">{} of suite <b>{}</b> (seed {}), {} to {}{}; exit code {}.</p>\n", html_escape(run.kind),
      html_escape(run.suite), run.seed, html_escape(run.started_at), html_escape(run.finished_at),
      run.complete ? "" : " <b>(incomplete)</b>", run.exit_code);
  body += "<h2>Files</h2><ul class=\"files\">\n";
  for (const char* name : {"report.json", "summary.md", "junit.xml", "results.jsonl", "bench.json", "measurements.jsonl"}) {
    const std::filesystem::path file = std::filesystem::path(run.source_dir) / name;
    std::error_code ec;
    if (std::filesystem::exists(file, ec))
      body += fmt::format("<li><a href=\"{}\">{}</a></li>\n", html_escape(file_url(file)), html_escape(file.string()));
  }
  body += fmt::format("<li class=\"meta\">the run's directory when it was added: <code>{}</code></li></ul>\n",
                      html_escape(run.source_dir));
  body += "<h2>Environment</h2><table class=\"kv\">\n";
  const auto row = [&](const std::string& k, const std::string& v) {
    body += "<tr><th>" + html_escape(k) + "</th><td>" + html_escape(v) + "</td></tr>\n";
  };
  row("host", run.host);
  row("device", stored_run_device(run));
  if (!run.driver_version.empty()) row("driver", run.driver_version);
  row("opcert", run.opcert_version + " (" + run.opcert_commit + ")");
  if (!run.project_commit.empty()) row("project commit", run.project_commit);
  row("platform", run.platform.empty() ? "-" : run.platform);
  row("peer", run.peer.empty() ? "-" : run.peer);
  for (const auto& [name, version] : run.libraries.items()) row(name, version.is_string() ? version.get<std::string>() : version.dump());
  row("command", run.command_line);
  body += "</table>\n<h2>Backends</h2><ul>\n";
  for (const BackendRecord& b : report.backends)
    body += fmt::format("<li>{} {} ({}{})</li>\n", html_escape(b.name), html_escape(b.version), html_escape(b.source),
                        b.peer ? ", the peer" : "");
  body += "</ul>\n" + devices_table(report) + "<h2>Status</h2>\n" + matrix_table(m, run, "");
  // The matrix links here: one anchor per backend and op, with what did not pass under it.
  std::map<std::string, std::vector<const CaseResult*>> by_cell;
  for (const CaseResult& r : report.results) by_cell[r.backend + "-" + r.op].push_back(&r);
  // A bench's cells are its benchmarks' checks: their anchors sit on its benchmark table's rows.
  std::set<std::string> bench_anchors;
  std::string failures;
  // A run with --devices says on which device each result ran.
  const bool tagged = std::any_of(report.results.begin(), report.results.end(), [](const CaseResult& r) { return r.device.has_value(); });
  for (const auto& [cell, results] : by_cell) {
    std::string rows;
    for (const CaseResult* r : results)
      if (r->status != Status::kPassed && r->status != Status::kSkipped)
        rows += fmt::format("<tr><td class=\"{}\">{}</td><td>{}</td><td>{}</td>{}<td>{}</td><td><code>{}</code></td></tr>\n",
                            status_class(std::string(status_name(r->status))), status_name(r->status),
                            html_escape(r->case_id), html_escape(r->impl_key),
                            tagged ? "<td>" + html_escape(device_cell(*r)) + "</td>" : "", html_escape(r->message),
                            html_escape(r->repro));
    failures += fmt::format("<h3 id=\"{}\">{}</h3>\n", html_escape(cell), html_escape(cell));
    failures += rows.empty() ? fmt::format("<p>All {} results passed or were skipped.</p>\n", results.size())
                             : std::string("<table class=\"list\"><thead><tr><th>status</th><th>case</th><th>implementation</th>") +
                                   (tagged ? "<th>device</th>" : "") + "<th>why</th><th>repro</th></tr></thead><tbody>\n" +
                                   rows + "</tbody></table>\n";
  }
  if (!failures.empty()) body += "<h2>By backend and op</h2>\n" + failures;
  if (!report.benchmarks.empty()) {
    body += "<h2>Benchmarks</h2><table class=\"list\"><thead><tr><th>case</th><th>implementation</th><th>time</th>"
            "<th>spread</th><th>throughput</th><th>vs peer</th><th>check</th></tr></thead><tbody>\n";
    for (const BenchRecord& b : report.benchmarks) {
      const std::string throughput = b.tflops && !b.compute_dtype.empty() ? fmt::format("{:.4g} TFLOP/s", *b.tflops)
                                     : b.gbps                             ? fmt::format("{:.4g} GB/s", *b.gbps)
                                                                          : "-";
      const std::string check = b.check ? std::string(status_name(*b.check)) : "";
      // The first row of each backend and op carries the anchor the status matrix links to, where
      // the run has no results of its own to hold it.
      const std::string cell = b.backend + "-" + b.op;
      const bool anchor = !by_cell.contains(cell) && bench_anchors.insert(cell).second;
      body += fmt::format("<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>\n",
                          anchor ? " id=\"" + html_escape(cell) + "\"" : "", html_escape(b.case_id), html_escape(b.impl_key), time_text(b.seconds),
                          b.spread ? fmt::format("±{:.1f}%", *b.spread * 100) : "-", throughput,
                          b.peer ? "peer" : optional_number(b.speedup_vs_peer, "{:.3f}x"), status_class(check),
                          html_escape(check.empty() ? "-" : check));
    }
    body += "</tbody></table>\n";
  }
  return layout(fmt::format("Run {}", run.id), "../", body, nullptr);
}

std::string series_index_page(const DashboardModel& m) {
  std::string body = fmt::format("<p class=\"meta\">{} series: one per case and implementation in each lineage.</p>\n",
                                 m.series.size());
  for (size_t li = 0; li < m.lineages.size(); ++li) {
    body += "<h2>" + html_escape(m.lineages[li].label) + "</h2>\n";
    body += "<table class=\"list\"><thead><tr><th>op</th><th>case</th><th>implementation</th><th>runs</th>"
            "<th>latest status</th><th>latest time</th><th>latest alignment</th><th>regressions</th></tr></thead><tbody>\n";
    for (const Series& s : m.series) {
      if (s.lineage != li) continue;
      const SeriesPoint& last = s.points.back();
      body += fmt::format(
          "<tr{}><td>{}</td><td><a href=\"{}.html\">{}</a></td><td>{}{}</td><td>{}</td><td class=\"{}\">{}</td>"
          "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
          s.regressed_last ? " class=\"regression\"" : "", html_escape(s.op), s.slug, html_escape(s.case_id),
          html_escape(s.impl_key), s.peer ? " (peer)" : "", s.points.size(), status_class(last.status),
          html_escape(last.status.empty() ? "-" : last.status), time_text(last.seconds),
          optional_number(last.alignment_ratio, "{:.3f}"), s.regressions);
    }
    body += "</tbody></table>\n";
  }
  return layout("Series", "../", body, nullptr);
}

std::string series_page(const DashboardModel& m, const Series& s) {
  json points = json::array();
  std::string rows;
  for (const SeriesPoint& p : s.points) {
    const StoredRun& run = run_of(m, p.run_id);
    const std::string label = fmt::format("#{} {}{}", p.run_id, p.started_at.substr(0, 16),
                                          p.commit.empty() ? "" : " " + short_commit(p.commit).substr(0, 7));
    const auto number = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    points.push_back({{"run", p.run_id},
                      {"label", label},
                      {"status", p.status},
                      {"seconds", number(p.seconds)},
                      {"min", number(p.seconds_min)},
                      {"max", number(p.seconds_max)},
                      {"repetitions", p.repetitions},
                      {"throughput", number(p.throughput)},
                      {"speedup", number(p.speedup_vs_peer)},
                      {"alignment", number(p.alignment_ratio)},
                      {"rmse", number(p.rmse)},
                      {"regressions", p.regressions}});
    std::string why;
    for (const std::string& r : p.regressions) why += html_escape(r) + "<br>";
    rows += fmt::format("<tr{}><td><a href=\"../runs/{}.html\">run {}</a></td><td>{}</td><td><code>{}</code></td>"
                        "<td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                        p.regressions.empty() ? "" : " class=\"regression\"", p.run_id, p.run_id,
                        html_escape(run.started_at), html_escape(short_commit(p.commit)), status_class(p.status),
                        html_escape(p.status.empty() ? "-" : p.status), time_text(p.seconds),
                        p.speedup_vs_peer ? fmt::format("{:.3f}x", *p.speedup_vs_peer) : "-",
                        optional_number(p.alignment_ratio, "{:.3f}"), why.empty() ? "-" : why);
  }
  const json data = {{"page", "series"},
                     {"case", s.case_id},
                     {"impl", s.impl_key},
                     {"unit", s.throughput_unit},
                     {"peer", s.peer},
                     {"points", std::move(points)}};
  std::string body = fmt::format(
      "<p class=\"meta\">{} · {} on {}{}; {} runs, {} with a regression against the run before (opcert compare's "
      "gates: status, perf over 5% at p &lt; 0.05, alignment growth over 2x).</p>\n",
      html_escape(s.op), html_escape(s.impl_key), html_escape(m.lineages[s.lineage].label), s.peer ? " (the peer)" : "",
      s.points.size(), s.regressions);
  body += "<div class=\"charts\">\n";
  for (const char* id : {"time", "throughput", "speedup", "alignment", "rmse"})
    body += fmt::format("<figure class=\"chart\"><canvas id=\"chart-{}\"></canvas></figure>\n", id);
  body += "</div>\n<h2>Runs</h2><table class=\"list\"><thead><tr><th>run</th><th>started</th><th>commit</th>"
          "<th>status</th><th>time</th><th>vs peer</th><th>alignment</th><th>regression</th></tr></thead><tbody>\n" +
          rows + "</tbody></table>\n";
  return layout(s.case_id + " · " + s.impl_key, "../", body, &data);
}

std::string roofline_page(const DashboardModel& m) {
  json groups = json::array();
  std::string body;
  std::set<int64_t> noted;  // runs whose unplaced benchmarks are named already
  for (const Lineage& lineage : m.lineages) {
    bool plotted = false;
    // Each kind of plot from the lineage's latest run that has such benchmarks, so that a later
    // bench of memory-bound ops alone does not hide an earlier one's GEMMs, nor the other way round.
    for (const RooflineKind kind : {RooflineKind::kIntensity, RooflineKind::kBandwidth}) {
      const StoredRun* found = latest_with(m, lineage, [&](const BenchRecord& b) { return placed_as(b) == kind; });
      if (!found) continue;
      const StoredRun& latest = *found;
      json points = json::array();
      std::set<std::string> platforms;
      for (const BenchRecord& b : m.reports.at(latest.id).benchmarks) {
        if (placed_as(b) != kind) continue;
        json point = {{"backend", b.backend}, {"label", b.case_id + " · " + b.impl_key}};
        if (kind == RooflineKind::kIntensity) {
          point["ai"] = b.flops / b.bytes;
          point["tflops"] = b.flops / *b.seconds / 1e12;
        } else {
          point["bytes"] = b.bytes;
          point["gbps"] = b.bytes / *b.seconds / 1e9;
        }
        points.push_back(std::move(point));
        if (!b.platform.empty()) platforms.insert(b.platform);
      }
      const json roofs = platform_roofs(m.peaks.at(latest.id), platforms, kind == RooflineKind::kIntensity);
      const size_t index = groups.size();
      const bool by_intensity = kind == RooflineKind::kIntensity;
      groups.push_back({{"title", lineage.label}, {"run", latest.id}, {"kind", by_intensity ? "intensity" : "bandwidth"},
                        {"points", std::move(points)}, {"roofs", roofs}});
      body += fmt::format(
          "<section><h2>{}{}</h2><p class=\"meta\">From {} ({}). {} {}</p>\n{}"
          "<figure class=\"chart wide\"><canvas id=\"roofline-{}\"></canvas></figure></section>\n",
          html_escape(lineage.label), by_intensity ? "" : ": memory-bound ops", run_link("", latest),
          html_escape(latest.started_at),
          by_intensity ? "Each benchmark by its arithmetic intensity (FLOP per byte, from its op's work model) and "
                         "achieved TFLOP/s."
                       : "These ops' work models count no FLOPs (their arithmetic is negligible next to their "
                         "traffic), so they have no arithmetic intensity to place: each is drawn by the bytes it "
                         "moves per launch and the bandwidth it achieved (bytes / time), under the memory roof.",
          roofs.empty() ? "No peaks are known for this device (its platform config has none), so no roof is drawn."
                        : "Roofs: the platform's spec peaks as its config gives them.",
          noted.insert(latest.id).second ? unplaced_note(m.reports.at(latest.id)) : "", index);
      plotted = true;
    }
    // A lineage whose benchmarks have no figure to place is named with them, not left out.
    const StoredRun* unplaced =
        latest_with(m, lineage, [](const BenchRecord& b) { return placed_as(b) == RooflineKind::kUnplaced; });
    if (!plotted && unplaced)
      body += fmt::format("<section><h2>{}</h2><p class=\"meta\">From {} ({}).</p>\n{}</section>\n",
                          html_escape(lineage.label), run_link("", *unplaced), html_escape(unplaced->started_at),
                          unplaced_note(m.reports.at(unplaced->id)));
  }
  if (groups.empty())
    body = "<p>No benchmark in the store has the bytes and time to place it on a roofline.</p>\n" + body;
  const json data = {{"page", "roofline"}, {"groups", std::move(groups)}};
  return layout("Roofline", "", body, &data);
}

std::string collectives_page(const DashboardModel& m) {
  json groups = json::array();
  std::string body;
  const auto swept = [](const BenchRecord& b) { return b.collective && b.collective->busbw_gbps; };
  for (const Lineage& lineage : m.lineages) {
    const StoredRun* found = latest_with(m, lineage, swept);
    if (!found) continue;
    const StoredRun& latest = *found;
    std::map<std::string, json> curves;
    for (const BenchRecord& b : m.reports.at(latest.id).benchmarks) {
      if (!swept(b)) continue;
      const CollectiveFigures& c = *b.collective;
      const std::string label = fmt::format("{} {}{} · {} ({} ranks)", b.op, c.dtype, c.reduce_op ? " " + *c.reduce_op : "",
                                            b.impl_key, c.ranks);
      curves[label].push_back({{"bytes", c.size_bytes}, {"busbw", *c.busbw_gbps}});
    }
    if (curves.empty()) continue;
    json list = json::array();
    for (auto& [label, points] : curves) list.push_back({{"label", label}, {"points", points}});
    const size_t index = groups.size();
    groups.push_back({{"title", lineage.label}, {"run", latest.id}, {"curves", std::move(list)}});
    body += fmt::format("<section><h2>{}</h2><p class=\"meta\">From {} ({}): bus bandwidth as nccl-tests defines it.</p>\n"
                        "<figure class=\"chart wide\"><canvas id=\"busbw-{}\"></canvas></figure></section>\n",
                        html_escape(lineage.label), run_link("", latest), html_escape(latest.started_at), index);
  }
  if (groups.empty()) body = "<p>No collective sweep in the store (<code>opcert bench --suite bench/collectives</code>).</p>\n";
  const json data = {{"page", "collectives"}, {"groups", std::move(groups)}};
  return layout("Collectives", "", body, &data);
}

}  // namespace opcert
