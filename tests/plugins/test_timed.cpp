// Test plugin "timed": an fp32 softmax that takes a known time, with device events, so that
// `opcert bench` can be tested for what it measures. Implementation "timed.softmax.sleep":
//   sleeps x.dim(0) milliseconds, then computes a correct softmax over the last dimension;
//   when the last dimension is 7 the result is scaled by 1.5 (a fast wrong op the check must flag).
// Events record the host clock: the op runs synchronously, so they bracket exactly its time.
#include <opcert/sdk/backend.h>

#include <chrono>
#include <memory>
#include <thread>

#include "fp32_softmax.h"

struct opcert_event {
  std::chrono::steady_clock::time_point at;
};

namespace {

using opcert::sdk::OpCall;
using opcert::sdk::Support;

Support query_softmax(const OpCall& call) { return opcert::test_plugin::query_fp32_softmax(call, "timed"); }

void run_softmax(const OpCall& call) {
  const auto x = call.input("x");
  std::this_thread::sleep_for(std::chrono::milliseconds(x.dim(0)));
  opcert::test_plugin::run_fp32_softmax(call);
  if (x.dim(-1) == 7) {
    const auto y = call.output("y");
    float* out = y.data<float>();
    for (int64_t i = 0; i < y.numel(); ++i) out[i] *= 1.5f;
  }
}

class Timed : public opcert::sdk::Backend, public opcert::sdk::EventBackend {
 public:
  static constexpr bool kHasEvents = true;

  Timed() {
    add({"timed.softmax.sleep", "softmax", "fp32 softmax that sleeps dim 0 milliseconds; wrong when the last dim is 7",
         query_softmax, run_softmax});
  }

  opcert::sdk::BackendInfo info() const override {
    return {"timed", "0.0.1", "opcert tests", "takes a known time (bench tests)"};
  }

  opcert_event* event_create(opcert_device) override { return new opcert_event{}; }
  void event_destroy(opcert_event* event) override { delete event; }
  void event_record(opcert_event* event) override { event->at = std::chrono::steady_clock::now(); }
  double event_elapsed_ms(opcert_event* start, opcert_event* stop) override {
    return std::chrono::duration<double, std::milli>(stop->at - start->at).count();
  }
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(Timed)
