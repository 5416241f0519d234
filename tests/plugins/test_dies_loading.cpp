// Test plugin that ends its process while it loads, one way per build (TEST_DIES, see
// tests/plugins/CMakeLists.txt), so that the runner's plugin probe can be tested with a real
// `opcert list` and `opcert run`:
//   1 "dies_at_dlopen": a static constructor raises SIGSEGV, so dlopen never returns;
//   2 "dies_in_init":   initialize raises SIGSEGV;
//   3 "hangs_in_init":  initialize sleeps forever (the probe's timeout must end it);
//   4 "exits_in_init":  initialize calls exit(5), as a library that gives up would.
// Each writes a line to stderr first: the runner must show it with the plugin's reason.
#include <opcert/sdk/backend.h>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace {

void say(const char* what) {
  std::fprintf(stderr, "test_dies_loading: %s\n", what);
  std::fflush(stderr);
}

#if TEST_DIES == 1
const int kDiesAtDlopen = [] {
  say("static constructor about to segfault");
  std::raise(SIGSEGV);
  return 0;
}();
#endif

class DiesLoading : public opcert::sdk::Backend {
 public:
  DiesLoading() {
#if TEST_DIES == 2
    say("initialize about to segfault");
    std::raise(SIGSEGV);
#elif TEST_DIES == 3
    say("initialize hanging");
    for (;;) sleep(1);
#elif TEST_DIES == 4
    say("initialize calling exit(5)");
    std::exit(5);
#endif
  }
  opcert::sdk::BackendInfo info() const override { return {"dies_loading", "1.0", "opcert tests", "never gets here"}; }
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(DiesLoading)
