// Test plugin "devices": a backend of several host-memory devices (OPCERT_TEST_DEVICES, default 3)
// serving one per process, as docs/ABI.md asks: it reads OPCERT_DEVICE and refuses a call for
// another device. Its fp32 softmax is right on every device but OPCERT_TEST_BAD_DEVICE, where each
// output is doubled: a bad device among good ones, for `--devices all` (tests/run/). With
// OPCERT_TEST_TRACE=FILE each call takes OPCERT_TEST_SLEEP_MS and appends "device start end" (ns,
// steady clock) to FILE, so a test can see the devices' workers run at the same time. Each call on
// OPCERT_TEST_SLOW_DEVICE takes OPCERT_TEST_SLOW_MS (default 1000) more: a slow device among fast
// ones, for --device-mode spread. Each device has a UUID (ABI 1.4) "TEST-DEVICE-<i>"; every device
// but the last has a PCI bus id "0000:0<i>:00.0", the last none (as a device that is not a PCI
// device of its own), so reports show both cases.
#include <opcert/sdk/backend.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "fp32_softmax.h"

namespace {

using opcert::sdk::OpCall;
using opcert::sdk::Support;

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v == nullptr ? fallback : std::atoi(v);
}

void run_softmax(const OpCall& call) {
  const int device = call.output("y").device().index;
  const int pinned = env_int("OPCERT_DEVICE", -1);
  if (pinned >= 0 && device != pinned)
    throw opcert::sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "called for device " + std::to_string(device) +
                                                                " in a process pinned to device " + std::to_string(pinned));
  if (device == env_int("OPCERT_TEST_SLOW_DEVICE", -1))
    std::this_thread::sleep_for(std::chrono::milliseconds(env_int("OPCERT_TEST_SLOW_MS", 1000)));
  if (const char* trace = std::getenv("OPCERT_TEST_TRACE")) {
    const auto start = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(env_int("OPCERT_TEST_SLEEP_MS", 0)));
    const auto ns = [](auto t) { return std::to_string(t.time_since_epoch().count()); };
    const std::string line = std::to_string(device) + " " + ns(start) + " " + ns(std::chrono::steady_clock::now()) + "\n";
    const int fd = ::open(trace, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      (void)!::write(fd, line.data(), line.size());  // one write: lines of several workers never interleave
      ::close(fd);
    }
  }
  opcert::test_plugin::run_fp32_softmax(call);
  if (device != env_int("OPCERT_TEST_BAD_DEVICE", -1)) return;
  const auto y = call.output("y");
  float* out = y.data<float>();
  for (int64_t i = 0; i < y.numel(); ++i) out[i] *= 2.0f;
}

class TestDevices : public opcert::sdk::Backend {
 public:
  TestDevices() {
    add({"devices.softmax.reference", "softmax", "fp32 softmax, wrong on OPCERT_TEST_BAD_DEVICE",
         [](const OpCall& call) { return opcert::test_plugin::query_fp32_softmax(call, "devices"); }, run_softmax});
  }

  opcert::sdk::BackendInfo info() const override {
    return {"devices", "1.0.0", "opcert tests", "several devices, one of them wrong on demand"};
  }

  std::vector<opcert::sdk::DeviceInfo> devices() const override {
    std::vector<opcert::sdk::DeviceInfo> list;
    const int count = env_int("OPCERT_TEST_DEVICES", 3);
    for (int i = 0; i < count; ++i)
      list.push_back({{OPCERT_DEVICE_CPU, i}, "test device " + std::to_string(i), 0, 1, "TEST-DEVICE-" + std::to_string(i),
                      i + 1 < count ? "0000:0" + std::to_string(i) + ":00.0" : ""});
    return list;
  }
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(TestDevices)
