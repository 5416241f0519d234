#include "cli/device_flags.h"

#include <fmt/format.h>

#include <charconv>

#include "cli/flag_checks.h"
#include "model/input_error.h"
#include "ranks/launch_env.h"
#include "ranks/rank_agreement.h"

namespace opcert {

void add_devices_flag(CLI::App& verb, std::string& text) {
  verb.add_option("--devices", text,
                  "Run on these devices of each selected backend, one worker per device in parallel, every result "
                  "tagged with its device: 'all' or indices such as 0,2 (`opcert list` shows them). Under mpirun or "
                  "srun each rank takes its share of its node's devices and rank 0 writes the outputs")
      ->type_name("all|LIST")
      ->check(parsed_by([](const std::string& text) { (void)parse_device_choice(text); }));
}

void add_device_mode_flag(CLI::App& verb, DeviceMode& mode) {
  verb.add_option_function<std::string>(
          "--device-mode", [&mode](const std::string& text) { mode = parse_device_mode(text); },
          fmt::format("With --devices (and across ranks): spread (the devices and ranks share the cases, each worker "
                      "taking the next one not yet started; the run ends sooner) or each (every device runs every "
                      "case, so a bad device shows as its own failures). Default: {}",
                      device_mode_name(mode)))
      ->type_name("spread|each")
      ->check(one_of({"spread", "each"}));
}

namespace {

constexpr int kMostWorkers = 64;  // per backend and device: past it, a typo rather than a plan

int parse_workers(const std::string& text) {
  if (text == "auto") return 0;
  int n = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (error != std::errc() || end != text.data() + text.size() || n < 1 || n > kMostWorkers)
    throw InputError(fmt::format("--workers '{}': give 'auto' or a count from 1 to {}", text, kMostWorkers));
  return n;
}

}  // namespace

void add_workers_flag(CLI::App& verb, int& workers) {
  verb.add_option_function<std::string>(
          "--workers", [&workers](const std::string& text) { workers = parse_workers(text); },
          "Workers per backend per device, side by side, sharing its cases a case at a time (the inputs and the "
          "reference made once per case); the cases running at once stay within the host's and the device's "
          "memory. Default: auto, one per two cores for each backend and device, 1 to 4")
      ->type_name("N|auto")
      ->check(parsed_by([](const std::string& text) { (void)parse_workers(text); }));
}

DeviceRun::DeviceRun(const std::string& text) {
  if (text.empty()) return;
  choice_ = parse_device_choice(text);
  const LaunchEnv env = read_launch_env();
  if (env.launcher.empty() || env.size.value_or(1) <= 1) return;
  if (!world_has_mpi())
    throw InputError(fmt::format("--devices: started by {} as rank {} of {}, but this opcert was built without MPI "
                                 "(OPCERT_WITH_MPI), so its ranks cannot merge their results; build it with MPI or run "
                                 "one opcert per node",
                                 env.launcher, env.rank.value_or(0), env.size.value_or(1)));
  world_ = make_world();
}

DeviceRun::~DeviceRun() {
  if (world_) world_->finalize();
}

void DeviceRun::agree_on(std::exception_ptr rank0_error) const {
  if (!world_) {
    if (rank0_error) std::rethrow_exception(rank0_error);
    return;
  }
  if (!agree_on_setup(*world_, rank0_error)) throw std::runtime_error("the ranks did not all start within 120 s");
}

int DeviceRun::share_exit_code(int code) const { return world_ ? opcert::share_exit_code(*world_, code) : code; }

}  // namespace opcert
