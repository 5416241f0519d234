// The collectives in flight on the backend's stream, and the bounded wait that drains them.
//
// A collective returns once NCCL has queued it, as nccl-tests' and torch.distributed's calls do, so
// that back-to-back collectives run back to back on the GPU. What a peer that died or hangs would
// then leave hanging is the next wait on the stream: every such wait of the backend (synchronize,
// a copy, an event's elapsed time) goes through `wait`, which, while a collective is in flight,
// polls the stream and each communicator's asynchronous error until the latest deadline, then
// aborts the communicators and throws TIMEOUT. With nothing in flight it is the plain blocking
// wait. Plain C++ (no CUDA, no NCCL): the stream and the communicators come in as callbacks, so a
// unit test drives it without a GPU.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace opcert::cuda {

class InFlightWatch {
 public:
  using Clock = std::chrono::steady_clock;

  /// A communicator with work in flight.
  class Watched {
   public:
    virtual ~Watched() = default;
    /// Throws sdk::Error (DEVICE or ABORTED) when the communicator reports an asynchronous error,
    /// having aborted it; returns otherwise.
    virtual void poll() = 0;
    /// ncclCommAbort; later calls fail with ABORTED. Safe to call more than once.
    virtual void abort() = 0;
    /// What did not complete, for the TIMEOUT message ("all_reduce of 8 element(s) per rank did not
    /// complete within 4 s: ...").
    virtual std::string late_message() const = 0;
  };

  /// What a poll of the stream (or of an event) found.
  enum class Progress { kDone, kNotReady };

  /// After `watched` queued a collective: the stream must drain by `deadline`.
  void arm(Watched& watched, Clock::time_point deadline);
  /// `watched` is going away (its communicator destroyed): it is no longer polled.
  void forget(Watched& watched);
  /// True while a collective queued since the last drained wait may still run.
  bool armed() const;

  /// Waits until `query` says done. With nothing armed, calls `block` (the plain CUDA wait) instead.
  /// `query` throws on a device error. `drains_stream`: a completed wait of the whole stream
  /// disarms every communicator (an event's completion says nothing of work queued after it).
  /// Throws sdk::Error TIMEOUT once the latest armed deadline passed, after aborting every armed
  /// communicator, and whatever a communicator's poll throws.
  void wait(const std::function<Progress()>& query, const std::function<void()>& block, bool drains_stream);

 private:
  struct Entry {
    Watched* watched;
    Clock::time_point deadline;
  };
  std::vector<Entry> snapshot() const;
  [[noreturn]] void time_out(const std::vector<Entry>& entries);

  mutable std::mutex mutex_;  // arm/forget may come from a communicator's destructor on another thread
  std::vector<Entry> in_flight_;
};

/// Between two polls of one wait: yields for its first 2 ms, then sleeps 200 us a poll.
class PollPacer {
 public:
  static constexpr std::chrono::milliseconds kSpinFor{2};
  void pause() const;

 private:
  InFlightWatch::Clock::time_point started_ = InFlightWatch::Clock::now();
};

}  // namespace opcert::cuda
