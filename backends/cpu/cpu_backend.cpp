// The portable CPU fallback backend: host memory, every op of the catalogue (the ops arrive with
// the conformance work; the backend registers now so the ABI path is exercised on every run).
#include <opcert/sdk/backend.h>

#include <thread>

namespace opcert::cpu {
namespace {

class CpuBackend : public sdk::Backend {
 public:
  sdk::BackendInfo info() const override {
    return {"cpu", "0.1.0", "opcert", "portable CPU fallback backend"};
  }

  std::vector<sdk::DeviceInfo> devices() const override {
    const auto threads = static_cast<int32_t>(std::thread::hardware_concurrency());
    return {sdk::DeviceInfo{{OPCERT_DEVICE_CPU, 0}, "host CPU", 0, threads}};
  }
};

}  // namespace
}  // namespace opcert::cpu

OPCERT_SDK_DEFINE_BUILTIN(opcert_cpu_backend_get_api, opcert::cpu::CpuBackend)
