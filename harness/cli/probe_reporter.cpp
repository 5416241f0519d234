#include "cli/probe_reporter.h"

#include <stdio.h>

#include <nlohmann/json.hpp>

namespace opcert {
namespace {

// One line, one write: the runner reads whole lines.
void say(int fd, nlohmann::json line) { dprintf(fd, "%s\n", line.dump().c_str()); }
void say(int fd, const char* event, const std::string& step) { say(fd, {{"event", event}, {"step", step}}); }

}  // namespace

std::optional<StepRefusal> ProbeReporter::before(const std::string& step) {
  if (auto refusal = skip_.before(step)) return refusal;
  say(fd_, "begin", step);
  return std::nullopt;
}

void ProbeReporter::after(const std::string& step) { say(fd_, "done", step); }

// How many entries a listing had: none, and the runner skips it (PluginProbe::lists_nothing).
void ProbeReporter::listed(const std::string& step, std::size_t count) {
  say(fd_, {{"event", "listed"}, {"step", step}, {"count", count}});
}

void ProbeReporter::finish() { say(fd_, "end", ""); }

}  // namespace opcert
