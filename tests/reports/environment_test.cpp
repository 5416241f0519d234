#include "reports/environment.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>

#include "test_support.h"

namespace opcert {
namespace {

using nlohmann::json;

TEST(Environment, CpuModelFromCpuinfo) {
  const std::string x86 =
      "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 143\n"
      "model name\t: Intel(R) Xeon(R) Platinum 8480+\nflags\t\t: fpu vme\n\nprocessor\t: 1\n"
      "model name\t: Intel(R) Xeon(R) Platinum 8480+\n";
  EXPECT_EQ(cpu_model_from_cpuinfo(x86), "Intel(R) Xeon(R) Platinum 8480+");
  EXPECT_EQ(cpu_model_from_cpuinfo("processor : 0\nBogoMIPS : 50.00\nHardware : BCM2835\n"), "BCM2835");
  EXPECT_EQ(cpu_model_from_cpuinfo("processor : 0\nBogoMIPS : 50.00\n"), std::nullopt);
}

TEST(Environment, MemoryTotalFromMeminfo) {
  EXPECT_EQ(memory_total_from_meminfo("MemTotal:       16318652 kB\nMemFree:         1234 kB\n"),
            uint64_t{16318652} * 1024);
  EXPECT_EQ(memory_total_from_meminfo("MemFree: 12 kB\n"), std::nullopt);
}

TEST(Environment, GpusFromNvidiaSmi) {
  const json gpus = gpus_from_nvidia_smi(
      "NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB, 1980 MHz, 2619 MHz, GPU-2e6a7c62-1baa-4fc5-583b-58ad093e462c, "
      "96.00.99.00.01\n"  // the shape an H100 host prints
      "NVIDIA A10, 535.104.05, 23028 MiB, [N/A], 6251 MHz, [N/A], 94.02.5C.00.01\n");
  ASSERT_TRUE(gpus.is_array());
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0], (json{{"index", 0},
                           {"name", "NVIDIA H100 80GB HBM3"},
                           {"driver_version", "580.159.04"},
                           {"memory_total_mib", 81559},
                           {"sm_clock_max_mhz", 1980},
                           {"mem_clock_max_mhz", 2619},
                           {"uuid", "GPU-2e6a7c62-1baa-4fc5-583b-58ad093e462c"},
                           {"vbios_version", "96.00.99.00.01"}}));
  EXPECT_EQ(gpus[1]["index"], 1);
  EXPECT_TRUE(gpus[1]["sm_clock_max_mhz"].is_null());
  EXPECT_EQ(gpus[1]["mem_clock_max_mhz"], 6251);
  EXPECT_TRUE(gpus[1]["uuid"].is_null());
  EXPECT_EQ(gpus[1]["vbios_version"], "94.02.5C.00.01");
}

TEST(Environment, GpuSerialsAndBusIdsJoinByUuid) {
  json gpus = gpus_from_nvidia_smi(
      "NVIDIA H200, 570.1, 143771 MiB, 1980 MHz, 3201 MHz, GPU-aaaa, 96.00.A0.00.01\n"
      "NVIDIA H200, 570.1, 143771 MiB, 1980 MHz, 3201 MHz, GPU-bbbb, 96.00.A0.00.01\n");
  // Listed in another order than the first query, and one GPU without a serial.
  add_gpu_serials(gpus, "GPU-bbbb, [N/A], 00000000:2A:00.0\nGPU-aaaa, 1654123456789, 00000000:1B:00.0\nGPU-cccc, 1, 2\n");
  EXPECT_EQ(gpus[0]["serial"], "1654123456789");
  EXPECT_EQ(gpus[0]["pci_bus_id"], "00000000:1B:00.0");
  EXPECT_TRUE(gpus[1]["serial"].is_null()) << gpus[1].dump();
  EXPECT_EQ(gpus[1]["pci_bus_id"], "00000000:2A:00.0");
  EXPECT_EQ(gpus.size(), 2u) << "a GPU the first query did not list is not added";
}

TEST(Environment, GpusFromAnOlderDriversQueryWithoutIdentity) {
  const json gpus = gpus_from_nvidia_smi("NVIDIA A100-SXM4-80GB, 470.57.02, 81251 MiB, 1410 MHz, 1593 MHz\n", false);
  ASSERT_TRUE(gpus.is_array());
  EXPECT_EQ(gpus[0]["name"], "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(gpus[0]["mem_clock_max_mhz"], 1593);
  EXPECT_FALSE(gpus[0].contains("uuid"));
  // The same line read as the identity query's is too short: no GPU from it.
  EXPECT_TRUE(gpus_from_nvidia_smi("NVIDIA A100-SXM4-80GB, 470.57.02, 81251 MiB, 1410 MHz, 1593 MHz\n").is_null());
}

TEST(Environment, NvidiaSmiFailureTextIsNoGpu) {
  EXPECT_TRUE(gpus_from_nvidia_smi("").is_null());
  EXPECT_TRUE(gpus_from_nvidia_smi(
                  "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
                  "latest NVIDIA driver is installed and running.\n")
                  .is_null());
}

TEST(Environment, CaptureRecordsThisMachineAndTheInputs) {
  EnvironmentInputs in;
  in.opcert_version = "0.1.0";
  in.git_commit = "abc1234";
  in.libraries = {{"torch", "1.13.1"}};
  const json env = capture_environment(in);

  std::array<char, 256> host{};
  ASSERT_EQ(::gethostname(host.data(), host.size() - 1), 0);
  EXPECT_EQ(env["host"], std::string(host.data()));
  EXPECT_EQ(env["os"]["sysname"], "Linux");
  EXPECT_EQ(env["cpu"]["logical_cores"], ::sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_TRUE(env["cpu"]["model"].is_string());
  ASSERT_TRUE(env["memory_total_bytes"].is_number_unsigned());
  EXPECT_GT(env["memory_total_bytes"].get<uint64_t>(), uint64_t{1} << 26);
  EXPECT_EQ(env["opcert_version"], "0.1.0");
  EXPECT_EQ(env["git_commit"], "abc1234");
  EXPECT_EQ(env["libraries"]["torch"], "1.13.1");
  EXPECT_TRUE(env["compiler"].is_string());  // the one this library was built with
  EXPECT_TRUE(env["build_type"].is_null());
  // GPU facts exactly when nvidia-smi is there to give them.
  const bool has_smi = test::run_command("command -v nvidia-smi >/dev/null").exit_code == 0;
  if (has_smi) {
    EXPECT_TRUE(env["gpus"].is_array()) << env.dump();
  } else {
    EXPECT_TRUE(env["gpus"].is_null()) << env.dump();
  }
}

}  // namespace
}  // namespace opcert
