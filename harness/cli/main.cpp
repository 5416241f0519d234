// opcert: conformance and benchmark harness for compute backends. Exit codes: docs/CLI.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "cli/usage_error.h"
#include "cli/verbs.h"
#include "loader/backend_handle.h"
#include "model/exit_codes.h"
#include "model/input_error.h"

namespace {

int run_cli(int argc, char** argv) {
  CLI::App app{"opcert: conformance and benchmark harness for compute backends", "opcert"};
  int exit_code = opcert::kExitOk;
  opcert::add_all_verbs(app, exit_code);

  // A bare `opcert` is bad usage: the one line, then the usage with the verbs.
  if (argc == 1) {
    std::fprintf(stderr, "%s\n\n%s",
                 opcert::usage_error_line(fmt::format("no verb given: give one of {}", opcert::verb_list(app)), "", "").c_str(),
                 app.help().c_str());
    return opcert::kExitBadInput;
  }
  // An unknown verb is one line naming it, exit 2: CLI11 would take it for an argument of the app
  // and answer `opcert nosuch --help` with the top-level help and exit 0.
  if (argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* verb : app.get_subcommands([](const CLI::App*) { return true; }))
      known = known || verb->check_name(argv[1]);
    if (!known) {
      std::fprintf(stderr, "opcert: error: unknown verb '%s'; the verbs are %s (opcert --help)\n", argv[1],
                   opcert::verb_list(app).c_str());
      return opcert::kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version: their text, exit 0
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s\n", opcert::parse_error_line(app, e).c_str());
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

// LeakSanitizer checks for leaks at exit, after the destructors: a sanitized build ends normally.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

}  // namespace

// Every scope of the verb has ended, its files closed and its workers reaped, when run_cli returns.
// What exit() would still run is the static destructors, LibTorch's above all: they unregister
// each of its operator kernels, about a sixth of the CPU an opcert process spends on the two-core
// machine (0.15-0.2 s of 1.0 s), paid by every worker and every verb. So the process ends here,
// once its streams are flushed.
int main(int argc, char** argv) {
  const int code = run_cli(argc, argv);
  if (kSanitized) return code;
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}
