#include "cli/session_flags.h"

#include <cstdio>

#include "cli/flag_checks.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "session/job/run_paths.h"
#include "util/duration.h"

namespace opcert {

void add_session_flags(CLI::App& verb, SessionFlags& flags, const std::string& suite_default,
                       const SessionFlagHelp& help) {
  add_common_options(verb, flags.options);
  flags.suite = suite_default;
  verb.add_option("--suite", flags.suite, help.suite)->type_name("NAME|FILE")->capture_default_str();
  verb.add_option("--filter", flags.filter, help.filter)->type_name("REGEX")->check(regular_expression());
  verb.add_option("--out", flags.out, "Output directory (default: out/<UTC timestamp>)")->type_name("DIR");
  verb.add_option("--resume", flags.resume, help.resume)->type_name("DIR");
  verb.add_option("--seed", flags.seed, "Seed of the generated inputs")->check(whole_number())->capture_default_str();
  verb.add_option("--max-memory", flags.max_memory,
                  "The most a case may need of host (and device) memory (K, M, G); a bigger case is SKIPPED")
      ->type_name("SIZE")
      ->check(byte_size());
  verb.add_option("--impl", flags.impl, help.impl)->type_name("GLOBS");
  add_peer_options(verb, flags.peer, help.peer_gives);
}

void add_timeout_flag(CLI::App& verb, SessionFlags& flags, const std::string& help) {
  verb.add_option("--timeout", flags.timeout_s, help)
      ->type_name("SECONDS")
      ->check(positive_number("seconds"))
      ->capture_default_str();
}

void add_after_session_flags(CLI::App& verb, SessionFlags& flags) {
  add_baseline_flags(verb, flags.baseline);
  add_history_flags(verb, flags.history);
}

std::chrono::milliseconds timeout_of(const SessionFlags& flags) {
  return milliseconds_from_seconds(flags.timeout_s);
}

void apply_session_flags(SessionSettings& s, bool& resume, const SessionFlags& flags,
                         std::chrono::system_clock::time_point started, const std::string& what) {
  s.filter = flags.filter;
  s.impl_selection = flags.impl;
  s.out_dir = chosen_out_dir(flags.out, flags.resume, started, what);
  resume = !flags.resume.empty();
  s.seed = flags.seed;
}

int after_session(int exit_code, const SessionFlags& flags, const std::filesystem::path& out_dir,
                  const PlatformCatalog& platforms, bool record) {
  if (!flags.baseline.baseline.empty()) {
    // A comparison that cannot judge (a gate asked for over timings it cannot test) is one line and
    // exit 2; the run's files stay, and the history below still gets them.
    int gates = kExitOk;
    try {
      gates = compare_with_baseline(flags.baseline.baseline, out_dir, flags.baseline.gates, platforms,
                                    flags.options.platform);
    } catch (const InputError& e) {
      std::fprintf(stderr, "opcert: error: --baseline: %s; the run's files are kept in %s\n", e.what(),
                   out_dir.string().c_str());
      gates = kExitBadInput;
    }
    if (exit_code == kExitOk) exit_code = gates;
  }
  if (record) keep_worse(exit_code, add_run_to_history(flags.history, out_dir, platforms));
  return exit_code;
}

int across_ranks(World& world, const SessionFlags& flags, const std::filesystem::path& out_dir,
                 const PlatformCatalog& platforms, const std::function<int()>& session) {
  int exit_code = kExitOk;
  try {
    exit_code = session();
  } catch (...) {
    world.finalize();
    throw;
  }
  exit_code = after_session(exit_code, flags, out_dir, platforms, world.rank() == 0);
  world.finalize();
  return exit_code;
}

}  // namespace opcert
