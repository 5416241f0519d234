#include "session/worker/plugin_probe.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>

#include "session/worker/worker_process.h"

namespace opcert {
namespace {

constexpr std::size_t kStderrLines = 5;
constexpr std::chrono::milliseconds kOwnTime{120'000};
constexpr int kMostChildren = 64;  // each child after the first ends one plugin; a bound, not a budget

// What the runner was doing in a step, for the reason a person reads.
std::string doing(const std::string& step) {
  if (step.starts_with("load ")) return "loading its library (dlopen, its static constructors)";
  if (step.starts_with("list ")) return "listing its backends";
  return "initialising it";
}

// A temporary file for the children's stderr, removed with this object.
struct ProbeLog {
  std::string path;
  ProbeLog() {
    std::string pattern = (std::filesystem::temp_directory_path() / "opcert-probe-XXXXXX").string();
    const int fd = mkstemp(pattern.data());
    if (fd < 0) throw std::runtime_error("cannot create the plugin probe's log in " + pattern);
    close(fd);
    path = pattern;
  }
  ~ProbeLog() { unlink(path.c_str()); }
};

}  // namespace

PluginProbe::PluginProbe(const ProbeLaunch& launch) {
  try {
    const ProbeLog log;
    for (int child = 0; child < kMostChildren; ++child)
      if (probe_once(launch, log.path)) return;
    unfinished_ = StepRefusal{fmt::format("not loaded: {} plugin probes each ended in another plugin", kMostChildren), {}};
  } catch (const std::exception& e) {
    unfinished_ = StepRefusal{fmt::format("not loaded: the plugin probe could not run: {}", e.what()), {}};
  }
}

bool PluginProbe::probe_once(const ProbeLaunch& launch, const std::string& log_path) {
  std::filesystem::resize_file(log_path, 0);
  std::vector<std::string> args = launch.args;
  for (const auto& [step, refusal] : failed_) args.insert(args.end(), {"--skip-plugin-step", step});
  WorkerProcess child(launch.executable, args, log_path);
  std::string in_step, text;
  for (;;) {
    // The timeout is a plugin's; the probe's own start (its exec and loading on a
    // busy machine) and its moves between plugins get at least kOwnTime.
    const auto allowed = in_step.empty() ? std::max<std::chrono::milliseconds>(launch.step_timeout, kOwnTime)
                                         : launch.step_timeout;
    switch (child.read_line(text, WorkerProcess::Clock::now() + allowed, nullptr)) {
      case WorkerProcess::Read::kLine: {
        const auto message = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
        const std::string event = message.is_object() ? message.value("event", "") : "";
        if (event == "end") return true;  // the child's exit after it is no plugin's doing
        if (event == "begin") in_step = message.value("step", "");
        if (event == "listed" && message.value("count", -1) == 0) listed_nothing_.insert(message.value("step", ""));
        if (event == "done") {
          passed_.insert(message.value("step", ""));
          in_step.clear();
        }
        continue;
      }
      case WorkerProcess::Read::kTimeout: {
        child.kill();
        const std::string why =
            fmt::format("not loaded: {} took longer than the plugin probe's {} s (--probe-timeout, OPCERT_PROBE_TIMEOUT); "
                        "the probe was killed",
                        in_step.empty() ? "the probe itself" : doing(in_step),
                        std::chrono::duration<double>(allowed).count());
        if (in_step.empty() || failed_.count(in_step) != 0) {
          unfinished_ = StepRefusal{why, last_lines(log_path, kStderrLines)};
          return true;
        }
        failed_[in_step] = StepRefusal{why, last_lines(log_path, kStderrLines)};
        return false;
      }
      case WorkerProcess::Read::kClosed:
      case WorkerProcess::Read::kStopped: {
        const std::string how = child.reap(std::chrono::seconds(5));
        StepRefusal refusal{"", last_lines(log_path, kStderrLines)};
        // Outside any step (the probe's own start, a bad flag): no plugin to blame, none loaded.
        if (in_step.empty() || failed_.count(in_step) != 0) {
          refusal.reason = fmt::format("not loaded: the plugin probe {} before it was done with this plugin", how);
          unfinished_ = std::move(refusal);
          return true;
        }
        refusal.reason = fmt::format("not loaded: the plugin probe {} while {}", how, doing(in_step));
        failed_[in_step] = std::move(refusal);
        return false;
      }
    }
  }
}

std::optional<StepRefusal> PluginProbe::before(const std::string& step) {
  if (auto it = failed_.find(step); it != failed_.end()) return it->second;
  if (passed_.count(step) != 0) return std::nullopt;
  if (unfinished_) return unfinished_;
  return StepRefusal{"not loaded: the plugin probe did not meet it (did a plugin directory change meanwhile?)", {}};
}

bool PluginProbe::lists_nothing(const std::string& step) const {
  return passed_.count(step) != 0 && listed_nothing_.count(step) != 0;
}

std::vector<std::string> last_lines(const std::string& path, std::size_t count) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  for (std::string l; std::getline(in, l);) {
    if (l.find_first_not_of(" \t\r") == std::string::npos) continue;
    lines.push_back(l.size() > 300 ? l.substr(0, 300) + "..." : l);
    if (lines.size() > count) lines.pop_front();
  }
  return {lines.begin(), lines.end()};
}

}  // namespace opcert
