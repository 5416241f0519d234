// bench/gpu_monitor.h: NVML's readings of a real GPU (label gpu: skips, saying why, where the
// driver's NVML is not there), and the account it gives of itself where NVML cannot be loaded.
#include "bench/gpu_monitor.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace opcert {
namespace {

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(GpuMonitor, WithoutNvmlItSaysWhyAndReadsNothing) {
  ScopedEnv library("OPCERT_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  GpuMonitor monitor;
  EXPECT_NE(monitor.unavailable().find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << monitor.unavailable();
  EXPECT_FALSE(monitor.read(0));
  const auto d = monitor.description();
  EXPECT_TRUE(d.at("source").is_null());
  EXPECT_EQ(d.at("unavailable"), monitor.unavailable());
}

TEST(GpuMonitor, ReadsTheClocksPowerAndReasonsOfCudaDeviceZero) {
  GpuMonitor monitor;
  if (!monitor.unavailable().empty()) GTEST_SKIP() << monitor.unavailable();
  const auto reading = monitor.read(0);
  ASSERT_TRUE(reading) << "NVML is loaded but has no device for CUDA index 0";
  ASSERT_TRUE(reading->sm_clock_mhz);
  EXPECT_GT(*reading->sm_clock_mhz, 0u);
  ASSERT_TRUE(reading->memory_clock_mhz);
  EXPECT_GT(*reading->memory_clock_mhz, 0u);
  ASSERT_TRUE(reading->power_w);
  EXPECT_GT(*reading->power_w, 0.0);
  EXPECT_TRUE(reading->clock_reasons);
  EXPECT_TRUE(reading->temperature_c);
  EXPECT_FALSE(monitor.read(4096)) << "a CUDA index past the devices";

  const auto d = monitor.description();
  EXPECT_EQ(d.at("source"), "nvml");
  EXPECT_FALSE(d.at("driver_version").get<std::string>().empty());
  ASSERT_EQ(d.at("devices").size(), 1u);
  const auto& device = d.at("devices")[0];
  EXPECT_EQ(device.at("cuda_index"), 0);
  EXPECT_FALSE(device.at("name").get<std::string>().empty());
  EXPECT_GE(device.at("max_sm_clock_mhz").get<unsigned>(), *reading->sm_clock_mhz);
  EXPECT_GT(device.at("power_limit_w").get<double>(), 0.0);
}

}  // namespace
}  // namespace opcert
