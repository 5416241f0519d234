// Test plugin "paced": an fp32 softmax whose device time is set, not measured, so that the bench's
// noise-aware stopping can be tested on a loaded machine. Its events read a clock of the plugin's
// own that each launch moves on by the launch's nominal time:
//   paced.softmax.steady   x.dim(0) / 10 milliseconds every time (noise 0)
//   paced.softmax.jittery  the same ± up to 20%, pseudo-random (noise ~11%), seeded per process
//   paced.softmax.queued   the steady device time, issued as a GPU's is: the host spends 1 ms of its
//                          own clock issuing the launch before the device can start it
//   paced.softmax.hostbound  host-bound: issuing takes 3 ms of real time (a sleep) and of the host
//                          clock, longer than the launch's device time, so the device waits on it
// Each computes a correct softmax; a launch takes microseconds of real time. The plugin keeps a host
// clock beside the device's: an event marks the later of the two (the point after the work queued
// so far), and waiting for an event or the device brings the host clock up to it. For the comparison
// tests, a change is injected through the environment:
//   OPCERT_TEST_PACED_SLOWER_ROWS=R  launches with dim 0 == R take 20% longer
//   OPCERT_TEST_PACED_WRONG_ROWS=R   launches with dim 0 == R compute a wrong result (x 1.5)
//   OPCERT_TEST_PACED_SEED=S         the jitter's seed (default: from the process id and the clock)
#include <opcert/sdk/backend.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <unistd.h>

#include "fp32_softmax.h"

struct opcert_event {
  double at_ms = 0.0;
};

namespace {

using opcert::sdk::OpCall;
using opcert::sdk::Support;

double device_clock_ms = 0.0;  // the plugin's device: launches run one at a time
double host_clock_ms = 0.0;    // the caller's time, as far as the plugin's launches and waits move it

// Runs `ms` of device work once the device is free and the host has issued it.
void run_on_device(double ms) { device_clock_ms = std::max(device_clock_ms, host_clock_ms) + ms; }

int64_t rows_from_env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoll(v) : -1;
}

uint64_t initial_seed() {
  if (const char* v = std::getenv("OPCERT_TEST_PACED_SEED"); v != nullptr && *v != '\0') return std::strtoull(v, nullptr, 10) | 1;
  const auto now = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return (now ^ (static_cast<uint64_t>(getpid()) << 32) ^ 0x9e3779b97f4a7c15ULL) | 1;
}

uint64_t jitter_state = initial_seed();

double nominal_ms(const OpCall& call) {
  const int64_t rows = call.input("x").dim(0);
  const double slower = rows == rows_from_env("OPCERT_TEST_PACED_SLOWER_ROWS") ? 1.2 : 1.0;
  return static_cast<double>(rows) / 10.0 * slower;
}

// The injected wrong result: the softmax of the rows named by OPCERT_TEST_PACED_WRONG_ROWS, x 1.5.
void maybe_break(const OpCall& call) {
  if (call.input("x").dim(0) != rows_from_env("OPCERT_TEST_PACED_WRONG_ROWS")) return;
  const auto y = call.output("y");
  float* out = y.data<float>();
  for (int64_t i = 0; i < y.numel(); ++i) out[i] *= 1.5f;
}

// A uniform draw from [-1, 1) (xorshift64: the same sequence on every run).
double next_jitter() {
  jitter_state ^= jitter_state << 13;
  jitter_state ^= jitter_state >> 7;
  jitter_state ^= jitter_state << 17;
  return static_cast<double>(jitter_state >> 11) / static_cast<double>(uint64_t{1} << 52) - 1.0;
}

Support query_softmax(const OpCall& call) { return opcert::test_plugin::query_fp32_softmax(call, "paced"); }

void run_steady(const OpCall& call) {
  opcert::test_plugin::run_fp32_softmax(call);
  maybe_break(call);
  run_on_device(nominal_ms(call));
}

void run_queued(const OpCall& call) {
  opcert::test_plugin::run_fp32_softmax(call);
  maybe_break(call);
  host_clock_ms += 1.0;
  run_on_device(nominal_ms(call));
}

void run_host_bound(const OpCall& call) {
  opcert::test_plugin::run_fp32_softmax(call);
  maybe_break(call);
  std::this_thread::sleep_for(std::chrono::milliseconds(3));  // the harness's wall clock sees the issue
  host_clock_ms += 3.0;
  run_on_device(nominal_ms(call));
}

void run_jittery(const OpCall& call) {
  opcert::test_plugin::run_fp32_softmax(call);
  maybe_break(call);
  run_on_device(nominal_ms(call) * (1.0 + 0.2 * next_jitter()));
}

class Paced : public opcert::sdk::Backend, public opcert::sdk::EventBackend {
 public:
  static constexpr bool kHasEvents = true;

  Paced() {
    add({"paced.softmax.steady", "softmax", "fp32 softmax taking dim 0 / 10 ms of device time, always", query_softmax,
         run_steady});
    add({"paced.softmax.jittery", "softmax", "fp32 softmax taking dim 0 / 10 ms of device time, +-20%", query_softmax,
         run_jittery});
    add({"paced.softmax.queued", "softmax", "fp32 softmax taking dim 0 / 10 ms of device time after 1 ms of issue",
         query_softmax, run_queued});
    add({"paced.softmax.hostbound", "softmax", "fp32 softmax taking dim 0 / 10 ms of device time after 3 ms of issue",
         query_softmax, run_host_bound});
  }

  opcert::sdk::BackendInfo info() const override {
    return {"paced", "0.0.1", "opcert tests", "device time set per launch (noise-aware stopping tests)"};
  }

  opcert_event* event_create(opcert_device) override { return new opcert_event{}; }
  void event_destroy(opcert_event* event) override { delete event; }
  void event_record(opcert_event* event) override { event->at_ms = std::max(device_clock_ms, host_clock_ms); }
  double event_elapsed_ms(opcert_event* start, opcert_event* stop) override {
    host_clock_ms = std::max(host_clock_ms, stop->at_ms);
    return stop->at_ms - start->at_ms;
  }
  void synchronize(opcert_device) override { host_clock_ms = std::max(host_clock_ms, device_clock_ms); }
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(Paced)
