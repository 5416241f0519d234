// Test plugin "crashy": a softmax that misbehaves on purpose, so the runner's worker isolation can
// be tested with a real `opcert run`. Implementation "crashy.softmax.segv" (fp32 only):
//   first dimension of x == 3: raises SIGSEGV (the worker dies mid-case -> CRASHED);
//   first dimension of x == 5: sleeps forever (the per-case timeout fires -> TIMEOUT);
//   first dimension of x == 7: abort() (SIGABRT -> CRASHED);
//   first dimension of x == 8: _exit(3), as a library that calls exit() would (-> CRASHED);
//   first dimension of x == 9: writes NaN everywhere (-> FAILED, NaN where the reference has none);
//   first dimension of x == 11: raises SIGSEGV in query_op, before anything runs (-> CRASHED);
//   first dimension of x == 10: allocates and touches 64 MiB blocks until malloc refuses one, then
//     writes through the null pointer, as a careless library would (-> CRASHED at the worker's
//     memory limit); it gives up at 2 GiB, so that a worker without its limit cannot take the host;
//   otherwise: a correct softmax over the last dimension (-> PASSED).
#include <opcert/sdk/backend.h>

#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdlib>

#include "fp32_softmax.h"

namespace {

using opcert::sdk::OpCall;
using opcert::sdk::Support;

Support query_softmax(const OpCall& call) {
  if (const auto x = call.find_input("x"); x && x->ndim() > 0 && x->dim(0) == 11) std::raise(SIGSEGV);
  return opcert::test_plugin::query_fp32_softmax(call, "crashy");
}

[[noreturn]] void run_away() {
  constexpr std::size_t kBlock = std::size_t{64} << 20;
  for (int blocks = 0; blocks < 32; ++blocks) {
    auto* block = static_cast<volatile char*>(std::malloc(kBlock));
    if (block == nullptr) break;
    for (std::size_t i = 0; i < kBlock; i += 4096) block[i] = 1;
  }
  *static_cast<volatile char*>(nullptr) = 1;  // malloc refused (or 2 GiB went by): unchecked
  std::abort();
}

void run_softmax(const OpCall& call) {
  const auto x = call.input("x");
  if (x.dim(0) == 3) std::raise(SIGSEGV);
  if (x.dim(0) == 5)
    for (;;) sleep(1);  // a hang the runner must time out
  if (x.dim(0) == 7) std::abort();
  if (x.dim(0) == 8) _exit(3);
  if (x.dim(0) == 10) run_away();
  opcert::test_plugin::run_fp32_softmax(call);
  if (x.dim(0) == 9) {
    const auto y = call.output("y");
    for (int64_t i = 0; i < y.numel(); ++i) y.data<float>()[i] = std::nanf("");
  }
}

class Crashy : public opcert::sdk::Backend {
 public:
  Crashy() {
    add({"crashy.softmax.segv", "softmax", "fp32 softmax that crashes when dim 0 is 3 and hangs when it is 5",
         query_softmax, run_softmax});
  }

  opcert::sdk::BackendInfo info() const override {
    return {"crashy", "0.0.1", "opcert tests", "crashes and hangs on purpose (worker isolation tests)"};
  }
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(Crashy)
