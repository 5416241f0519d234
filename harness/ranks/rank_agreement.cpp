#include "ranks/rank_agreement.h"

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "model/exit_codes.h"
#include "model/input_error.h"

namespace opcert {

bool agree_on_setup(World& world, std::exception_ptr setup_error) {
  // 1: ready; 0: bad input (exit 2); -1: any other failure (exit 1). The minimum is the verdict.
  int64_t mine = 1;
  if (setup_error) {
    try {
      std::rethrow_exception(setup_error);
    } catch (const InputError&) {
      mine = 0;
    } catch (...) {
      mine = -1;
    }
  }
  const auto agreed = world.all_min(mine, std::chrono::steady_clock::now() + kRankStartupWait);
  if (setup_error) std::rethrow_exception(setup_error);
  if (!agreed) return false;
  if (*agreed == 0) throw InputError("another rank could not start the run (its message says why)");
  if (*agreed < 0) throw std::runtime_error("another rank could not start the run (its message says why)");
  return true;
}

int share_exit_code(World& world, int code) {
  std::vector<uint8_t> bytes(1, static_cast<uint8_t>(code));
  if (!world.broadcast(bytes, 0, std::chrono::steady_clock::now() + std::chrono::hours(24 * 7))) return kExitCheckFailed;
  return bytes[0];
}

}  // namespace opcert
