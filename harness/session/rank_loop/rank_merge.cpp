#include "session/rank_loop/rank_merge.h"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "model/case_result_json.h"
#include "model/input_error.h"
#include "reports/bench_record_json.h"
#include "reports/report_writer.h"
#include "model/text_file.h"
#include "session/job/stop_request.h"

namespace opcert {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// A benchmark as it travels: its record's JSON (as measurements.jsonl has it), and its runs whole,
// which that JSON keeps only in part (each repetition's time and sampling), so that rank 0's
// bench.json reads as one process's.
json benchmark_wire(const BenchRecord& record) {
  json runs = json::array();
  for (const BenchRun& r : record.runs)
    runs.push_back({{"name", r.name}, {"run_name", r.run_name}, {"aggregate", r.aggregate},
                    {"aggregate_is_percentage", r.aggregate_is_percentage}, {"family_index", r.family_index},
                    {"per_family_instance_index", r.per_family_instance_index}, {"repetitions", r.repetitions},
                    {"repetition_index", r.repetition_index}, {"threads", r.threads}, {"iterations", r.iterations},
                    {"seconds", r.seconds}, {"cpu_seconds", r.cpu_seconds}, {"error", r.error}, {"counters", r.counters}});
  return {{"record", bench_record_json(record)}, {"runs", runs}};
}

// JSON has no NaN or infinity: nlohmann writes them as null, read back as NaN.
double number_or_nan(const json& j) { return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN(); }

BenchRecord benchmark_from_wire(const json& wire) {
  BenchRecord record = bench_record_from_json(wire.at("record"));
  std::vector<std::optional<Sampling>> samplings;  // the repetitions', in order
  for (const BenchRun& r : record.runs)
    if (r.aggregate.empty()) samplings.push_back(r.sampling);
  record.runs.clear();
  std::size_t repetition = 0;
  for (const json& j : wire.at("runs")) {
    BenchRun r;
    r.name = j.at("name");
    r.run_name = j.at("run_name");
    r.aggregate = j.at("aggregate");
    r.aggregate_is_percentage = j.at("aggregate_is_percentage");
    r.family_index = j.at("family_index");
    r.per_family_instance_index = j.at("per_family_instance_index");
    r.repetitions = j.at("repetitions");
    r.repetition_index = j.at("repetition_index");
    r.threads = j.at("threads");
    r.iterations = j.at("iterations");
    r.seconds = number_or_nan(j.at("seconds"));
    r.cpu_seconds = number_or_nan(j.at("cpu_seconds"));
    r.error = j.at("error");
    for (const auto& [name, value] : j.at("counters").items()) r.counters[name] = number_or_nan(value);
    if (r.aggregate.empty() && repetition < samplings.size()) r.sampling = samplings[repetition++];
    record.runs.push_back(std::move(r));
  }
  return record;
}

}  // namespace

void RankUplink::send(const std::string& message) {
  const std::lock_guard lock(mutex_);
  if (gone_) return;
  if (!world_.send_to_root(message, Clock::now() + patience_)) gone_ = true;
}

void RankUplink::hello(std::size_t results, const json& setup, const std::vector<int>& lanes) {
  send(json{{"kind", "hello"}, {"results", results}, {"setup", setup}, {"lanes", lanes}}.dump());
}

void RankUplink::result(const CaseResult& result, bool peer) {
  send(json{{"kind", "result"}, {"peer", peer}, {"result", to_json(result)}}.dump());
}

void RankUplink::benchmark(const BenchRecord& record, const std::optional<CaseResult>& check) {
  send(json{{"kind", "benchmark"}, {"benchmark", benchmark_wire(record)}, {"check", check ? to_json(*check) : json()}}.dump());
}

void RankUplink::done(bool complete, const std::filesystem::path& log_dir) {
  json logs = json::object();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(log_dir, ec))
    if (entry.is_regular_file()) logs[entry.path().filename().string()] = read_text_file(entry.path()).value_or("");
  send(json{{"kind", "done"}, {"complete", complete}, {"logs", logs}}.dump());
}

RankMerger::~RankMerger() {
  give_up_at_ = 1;  // long past: the receivers return at their next poll
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

std::size_t RankMerger::gather_hellos(std::chrono::milliseconds wait, const json& setup) {
  std::size_t total = 0;
  const auto deadline = Clock::now() + wait;
  lanes_.assign(static_cast<std::size_t>(world_.size()), {});
  for (int from = 1; from < world_.size(); ++from) {
    const auto message = world_.receive_from(from, deadline);
    if (!message)
      throw std::runtime_error(fmt::format("rank {} did not start its share of the run within {} s", from,
                                           std::chrono::duration_cast<std::chrono::seconds>(wait).count()));
    const json m = json::parse(*message);
    if (m.at("kind") != "hello") throw std::runtime_error(fmt::format("rank {} is out of step with rank 0", from));
    // Each rank loaded its own suite, platform configs and golden set: one that differs would judge
    // its devices by other cases, tolerances or references under rank 0's name.
    for (const auto& [field, value] : setup.items())
      if (m.at("setup").value(field, json()) != value)
        throw InputError(fmt::format("rank {} runs with another {} than rank 0 ({} there, {} here): give every node the same "
                                     "files",
                                     from, field, m.at("setup").value(field, json()).dump(), value.dump()));
    total += m.at("results").get<std::size_t>();
    lanes_[static_cast<std::size_t>(from)] = m.value("lanes", std::vector<int>{});
  }
  return total;
}

void RankMerger::start(Deliver deliver, DeliverBenchmark benchmark) {
  deliver_ = std::move(deliver);
  deliver_benchmark_ = std::move(benchmark);
  inboxes_.resize(static_cast<std::size_t>(world_.size()));
  for (int from = 1; from < world_.size(); ++from)
    threads_.emplace_back([this, from] { receive(from, inboxes_[static_cast<std::size_t>(from)]); });
}

void RankMerger::stop_after(std::chrono::milliseconds grace) {
  give_up_at_ = (Clock::now() + grace).time_since_epoch().count();
}

void RankMerger::receive(int from, Inbox& inbox) {
  auto last_heard = Clock::now();
  for (;;) {
    const auto message = world_.receive_from(from, Clock::now() + std::chrono::milliseconds(200));
    const auto now = Clock::now();
    if (!message) {
      // A stop (the launcher's SIGTERM when another rank died) that came after this rank's own
      // lanes had finished: nobody called stop_after, so the grace starts here.
      if (stop_requested() && give_up_at_ == 0) stop_after(kStopGrace);
      const int64_t give_up = give_up_at_;
      if (give_up != 0 && now.time_since_epoch().count() >= give_up) {
        inbox.problem = fmt::format("rank {}: stopped waiting for it after the run was interrupted", from);
        return;
      }
      if (now - last_heard > silence_limit_) {
        inbox.problem = fmt::format("rank {} sent nothing for {} s: it died or hangs", from,
                                    std::chrono::duration_cast<std::chrono::seconds>(silence_limit_).count());
        return;
      }
      continue;
    }
    last_heard = now;
    try {
      const json m = json::parse(*message);
      const std::string kind = m.at("kind");
      if (kind == "result") {
        CaseResult r = case_result_from_json(m.at("result"));
        deliver_(std::move(r), m.at("peer").get<bool>());
      } else if (kind == "benchmark" && deliver_benchmark_) {
        const json& check = m.at("check");
        deliver_benchmark_(benchmark_from_wire(m.at("benchmark")),
                           check.is_null() ? std::nullopt : std::optional(case_result_from_json(check)));
      } else if (kind == "done") {
        for (const auto& [name, text] : m.at("logs").items()) inbox.logs.emplace_back(name, text.get<std::string>());
        if (!m.at("complete").get<bool>()) inbox.problem = fmt::format("rank {} was interrupted before its end", from);
        return;
      } else {
        throw std::runtime_error("unexpected message '" + kind + "'");
      }
    } catch (const std::exception& e) {
      inbox.problem = fmt::format("rank {} sent what rank 0 cannot read ({})", from, e.what());
      return;
    }
  }
}

std::vector<std::string> RankMerger::finish(const std::filesystem::path& out_dir) {
  for (auto& t : threads_) t.join();
  threads_.clear();
  std::vector<std::string> problems;
  for (std::size_t r = 1; r < inboxes_.size(); ++r) {
    const Inbox& inbox = inboxes_[r];
    if (inbox.problem) problems.push_back(*inbox.problem);
    if (inbox.logs.empty()) continue;
    const auto dir = out_dir / "logs" / fmt::format("rank{}", r);
    std::filesystem::create_directories(dir);
    for (const auto& [name, text] : inbox.logs)
      if (name.find('/') == std::string::npos && name != ".." && name != ".")
        write_file_atomically(dir / name, text);
  }
  return problems;
}

}  // namespace opcert
