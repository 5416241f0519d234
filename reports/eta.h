// How long a run still has to go, from its pace so far: the time per finished job times the jobs
// left. Shown on the progress line of `opcert run` and `opcert bench` once a few jobs finished
// (before that the pace says little).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace opcert {

class Eta {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kMinDone = 3;  ///< jobs finished before an estimate is shown

  explicit Eta(Clock::time_point started = Clock::now()) : started_(started) {}

  /// "eta 3m12s" with `done` of `total` finished at `now`; "" before kMinDone or once all are done.
  std::string text(std::size_t done, std::size_t total, Clock::time_point now = Clock::now()) const;
  /// Seconds since the start.
  double elapsed_s(Clock::time_point now = Clock::now()) const;

 private:
  Clock::time_point started_;
};

/// "45s", "3m12s", "2h05m": a duration as the progress line shows it.
std::string short_duration(double seconds);

}  // namespace opcert
