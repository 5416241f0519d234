// `opcert worker`: the hidden verb the runner of `opcert run` (run/worker_lanes.h) or `opcert
// bench` (bench/bench_workers.h, with --bench) starts once per backend.
// It speaks the protocol on the stdin and stdout it was given and moves everything else out of
// the way: a backend that prints to stdout would otherwise corrupt the protocol.
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <memory>
#include <optional>

#include "bench/bench_worker.h"
#include "check/suite.h"
#include "cli/cli_context.h"
#include "cli/flag_checks.h"
#include "cli/golden_flags.h"
#include "cli/protocol_fds.h"
#include "cli/verbs.h"
#include "model/dtype.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "session/execution/case_memo.h"
#include "session/execution/execution.h"
#include "session/execution/input_cache.h"
#include "session/worker/worker_loop.h"
#include "session/worker/worker_memory_limit.h"
#include "session/worker/worker_protocol.h"

namespace opcert {
namespace {

struct WorkerFlags {
  std::string suite;
  uint64_t seed = 1;
  std::string golden;
  bool platforms_from_runner = false;
  std::vector<std::string> platform_texts;  // "<source>\n<the file's text>"
  int device = 0;  // the runner also sets OPCERT_DEVICE to it, for a backend that pins itself
  uint64_t max_memory = 0;  // --max-memory in bytes, 0: no cap
  std::string bench;        // --bench: a bench worker's settings (bench/bench_protocol.h); "" for run
};

// The catalogue the runner loaded: the built-ins and each file's text as it read it (never the
// files again, nor OPCERT_PLATFORM_JSON, which the worker inherits).
PlatformCatalog runner_catalog(const std::vector<std::string>& texts) {
  PlatformCatalog catalog = PlatformCatalog::builtin();
  for (const std::string& t : texts) {
    const auto newline = t.find('\n');
    catalog.merge_text(newline == std::string::npos ? "" : std::string_view(t).substr(newline + 1), t.substr(0, newline));
  }
  return catalog;
}

// What the worker loaded before it says hello: its backend, suite, golden set and platforms, or
// the one line why it cannot serve (hello.fatal).
struct WorkerSetup {
  WorkerHello hello;
  std::unique_ptr<Registry> registry;
  BackendHandle* backend = nullptr;
  Suite suite;
  ExecutionOptions::ReferenceSource golden;
  std::optional<PlatformConfig> platform;
  PlatformCatalog platforms;
  std::optional<BenchWorkerSettings> bench;
};

WorkerSetup set_up(const WorkerFlags& flags, const CommonOptions& options) {
  WorkerSetup w;
  try {
    if (!flags.bench.empty()) w.bench = bench_worker_settings_from_json(nlohmann::json::parse(flags.bench));
    w.platforms = flags.platforms_from_runner ? runner_catalog(flags.platform_texts) : load_platform_catalog(options);
    if (!options.platform.empty()) {
      w.platform = w.platforms.require(options.platform);
      for (const auto& [name, value] : w.platform->environment) setenv(name.c_str(), value.c_str(), 1);
    }
    w.registry = load_registry(options, options.backend);  // its own Python backend, not every one
    w.backend = w.registry->find(options.backend);
    if (!w.backend) {
      std::string why = "backend '" + options.backend + "' is not usable in the worker";
      for (const auto& u : w.registry->unavailable()) why += "; unavailable: " + u.source + ": " + u.reason;
      throw NoBackendError(why);
    }
    w.suite = load_suite(flags.suite, flags.seed);
    if (!flags.golden.empty()) w.golden = golden_reference_source(flags.golden, w.suite, flags.seed);
    w.hello.backend = w.backend->name();
    w.hello.cases = static_cast<int64_t>(w.suite.cases.size());
  } catch (const std::exception& e) {
    w.hello = WorkerHello{};
    w.hello.fatal = e.what();
  }
  return w;
}

// Says hello on the protocol, then serves the runner's jobs until it closes them.
int serve(const WorkerFlags& flags, const CommonOptions& options) {
  // The runner owns this process: if it dies, so do we (a hung case must not outlive it).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) std::_Exit(kExitBadInput);
  const ProtocolFds fds = take_protocol_fds();
  if (fds.in < 0 || fds.out < 0) return kExitBadInput;
  WorkerSetup w = set_up(flags, options);
  if (!write_all(fds.out, encode_hello(w.hello)) || !w.hello.fatal.empty()) return w.hello.fatal.empty() ? kExitOk : kExitBadInput;
  // From here on a case's allocations count against the worker's limit (session/worker/worker_memory_limit.h).
  limit_worker_memory(flags.max_memory);
  const PlatformConfig* applied = w.platform ? &*w.platform : nullptr;
  // The runner sends a case's implementations one after the other: they share its inputs and reference.
  const auto memo = std::make_shared<CaseMemo>();
  // The run's folder of big inputs shared with its other workers, where the runner made one.
  const InputCache input_cache = input_cache_from_environment();
  const auto options_for = [applied, &flags, &w, memo, input_cache](const Case& c) {
    ExecutionOptions o = execution_options(c, applied);
    o.device_index = flags.device;
    o.max_memory = flags.max_memory;
    o.reference = w.golden;
    o.memo = memo;
    o.input_cache = input_cache;
    return o;
  };
  // A bench worker times its jobs (bench/bench_worker.h); the runner checked the settings' flags.
  std::unique_ptr<BenchWorker> bench;
  if (w.bench) bench = std::make_unique<BenchWorker>(*w.backend, &w.platforms, std::move(*w.bench), options_for);
  BackendHandle& backend = *w.backend;
  serve_jobs(backend, w.suite, fds.in, fds.out, [&](const JobRequest& job, const Case& c) {
    if (!job.bench.is_null()) {
      if (!bench) throw std::runtime_error("a bench job for a worker started without --bench");
      return bench->measure(job, c);
    }
    ExecutionOptions o = options_for(c);
    // The runner bounds the backend's part of the case by --timeout, the harness's own by its limit.
    o.phase_mark = [out = fds.out](bool backend_part) { write_all(out, encode_phase_mark(backend_part)); };
    return WorkerAnswer{execute_case(backend, job.impl_key, c, o), nullptr};
  });
  return kExitOk;
}

}  // namespace

void add_worker_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("worker", "Serve one backend's cases to a running `opcert run` or `opcert bench` (internal)");
  verb->group("");  // hidden from --help: only the runner starts it
  auto options = std::make_shared<CommonOptions>();
  auto flags = std::make_shared<WorkerFlags>();
  add_common_options(*verb, *options);
  verb->add_option("--suite", flags->suite, "Suite name or file")->required();
  verb->add_option("--seed", flags->seed, "Seed of the generated inputs")->check(whole_number());
  verb->add_option("--golden", flags->golden, "Read references from this golden set")->check(existing_path());
  verb->add_flag("--platforms-from-runner", flags->platforms_from_runner, "Platform configs come as --platform-config-text");
  verb->add_option("--platform-config-text", flags->platform_texts, "A platform config's source name, a newline, its text");
  verb->add_option("--device", flags->device, "Index of the backend's device to run every case on")
      ->check(whole_number(0, std::numeric_limits<int>::max()));
  verb->add_option("--max-memory", flags->max_memory, "The most a case may need, in bytes (0: no cap)")->check(whole_number());
  verb->add_option("--bench", flags->bench, "Check and time each job for `opcert bench` under these settings (JSON)");

  verb->callback([options, flags, &exit_code] { exit_code = serve(*flags, *options); });
}

}  // namespace opcert
