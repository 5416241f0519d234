// opcert: conformance and benchmark harness for compute backends. Exit codes: docs/CLI.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "cli/verbs.h"
#include "loader/backend_handle.h"
#include "model/exit_codes.h"
#include "model/input_error.h"

int main(int argc, char** argv) {
  CLI::App app{"opcert: conformance and benchmark harness for compute backends", "opcert"};
  app.require_subcommand(1);
  app.fallthrough(false);

  int exit_code = opcert::kExitOk;
  opcert::add_list_verb(app, exit_code);
  opcert::add_run_verb(app, exit_code);
  opcert::add_bench_verb(app, exit_code);
  opcert::add_compare_verb(app, exit_code);
  opcert::add_certify_verb(app, exit_code);
  opcert::add_verify_verb(app, exit_code);
  opcert::add_golden_verb(app, exit_code);
  opcert::add_history_verb(app, exit_code);
  opcert::add_dashboard_verb(app, exit_code);
  opcert::add_selftest_verb(app, exit_code);
  opcert::add_version_verb(app, exit_code);
  opcert::add_worker_verb(app, exit_code);
  opcert::add_probe_verb(app, exit_code);

  // An unknown verb is one line naming it, exit 2: CLI11 would take it for an argument of the app
  // and answer `opcert nosuch --help` with the top-level help and exit 0.
  if (argc > 1 && argv[1][0] != '-') {
    std::string verbs;
    bool known = false;
    for (const CLI::App* verb : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || verb->check_name(argv[1]);
      if (!verb->get_group().empty()) verbs += (verbs.empty() ? "" : ", ") + verb->get_name();  // not the hidden worker
    }
    if (!known) {
      std::fprintf(stderr, "opcert: error: unknown verb '%s'; the verbs are %s (opcert --help)\n", argv[1], verbs.c_str());
      return opcert::kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints CLI11's one-line reason
    return opcert::kExitBadInput;
  } catch (const opcert::InputError& e) {
    std::fprintf(stderr, "opcert: error: %s\n", e.what());
    return opcert::kExitBadInput;
  } catch (const opcert::NoBackendError& e) {
    std::fprintf(stderr, "opcert: error: %s\n", e.what());
    return opcert::kExitNoBackend;
  } catch (const std::exception& e) {
    // A failure of the machine rather than of the input (a full disk, a backend that cannot start):
    // one line, and the exit code of a failed check, never a crash.
    std::fprintf(stderr, "opcert: error: %s\n", e.what());
    return opcert::kExitCheckFailed;
  }
  return exit_code;
}
