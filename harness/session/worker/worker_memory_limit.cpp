#include "session/worker/worker_memory_limit.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <thread>

#include "session/execution/memory_admission.h"
#include "util/byte_size.h"

namespace opcert {
namespace {

constexpr std::array kFatalSignals = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE};

// Written before any handler can run, read only inside them.
uint64_t g_held = 0;    // data mapped when the limit was set
uint64_t g_budget = 0;  // what a case may map on top of it
char g_note_tail[256];  // " mapped since its backend started, ...\n", composed at install time
std::size_t g_note_tail_length = 0;
struct sigaction g_previous[kFatalSignals.size()];

// VmData in bytes, read with async-signal-safe calls only (open, read, close): it runs in a handler.
uint64_t read_vm_data() {
  char buffer[4096];
  const int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::size_t size = 0;
  for (;;) {
    const ssize_t n = read(fd, buffer + size, sizeof buffer - 1 - size);
    if (n <= 0) break;
    size += static_cast<std::size_t>(n);
    if (size == sizeof buffer - 1) break;
  }
  close(fd);
  buffer[size] = '\0';
  const char* at = std::strstr(buffer, "VmData:");
  if (at == nullptr) return 0;
  at += 7;
  while (*at == ' ' || *at == '\t') ++at;
  uint64_t kib = 0;
  while (*at >= '0' && *at <= '9') kib = kib * 10 + static_cast<uint64_t>(*at++ - '0');
  return kib * 1024;
}

// Appends the decimal digits of `value` to `out` (async-signal-safe).
std::size_t append_decimal(char* out, uint64_t value) {
  char digits[24];
  std::size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  for (std::size_t i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  return n;
}

std::size_t signal_index(int signal) {
  for (std::size_t i = 0; i < kFatalSignals.size(); ++i)
    if (kFatalSignals[i] == signal) return i;
  return 0;
}

extern "C" void on_fatal_signal(int signal, siginfo_t* info, void*) {
  const uint64_t data = read_vm_data();
  // A case that died with half its budget or more mapped is taken to have died of its limit: an
  // allocation refused there leaves up to one block (64 MiB, say) of it unused.
  if (g_budget != 0 && data >= g_held && data - g_held >= g_budget / 2) {
    char line[512];
    std::size_t n = 0;
    std::memcpy(line, kMemoryLimitMarker.data(), kMemoryLimitMarker.size());
    n += kMemoryLimitMarker.size();
    n += append_decimal(line + n, (data - g_held) >> 20);
    line[n++] = 'M';
    std::memcpy(line + n, g_note_tail, g_note_tail_length);
    n += g_note_tail_length;
    ssize_t ignored = write(STDERR_FILENO, line, n);
    (void)ignored;
  }
  // The previous action (the default's death, or a sanitizer's report) takes it from here. A fault
  // the kernel raised (si_code > 0) recurs on return with its own details; a signal sent (raise,
  // abort, kill) is sent again, blocked until this handler returns.
  sigaction(signal, &g_previous[signal_index(signal)], nullptr);
  if (info == nullptr || info->si_code <= 0) std::raise(signal);
}

}  // namespace

uint64_t process_data_bytes() { return read_vm_data(); }

uint64_t thread_stack_headroom() {
  rlimit stack{};
  const uint64_t per_thread =
      getrlimit(RLIMIT_STACK, &stack) == 0 && stack.rlim_cur != RLIM_INFINITY ? stack.rlim_cur : uint64_t{8} << 20;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  return (uint64_t{threads} + 4) * per_thread;
}

uint64_t limit_process_data(uint64_t budget) {
  const uint64_t held = read_vm_data();
  if (budget == 0 || held == 0) return 0;
  rlimit current{};
  if (getrlimit(RLIMIT_DATA, &current) != 0) return 0;
  const uint64_t wanted_limit = held > UINT64_MAX - budget ? UINT64_MAX : held + budget;
  // Never above a limit already set, soft or hard: the tighter one stands.
  uint64_t limit = wanted_limit;
  if (current.rlim_cur != RLIM_INFINITY) limit = std::min<uint64_t>(limit, current.rlim_cur);
  if (current.rlim_max != RLIM_INFINITY) limit = std::min<uint64_t>(limit, current.rlim_max);
  const rlimit wanted{static_cast<rlim_t>(limit), current.rlim_max};
  if (setrlimit(RLIMIT_DATA, &wanted) != 0) return 0;
  g_held = held;
  return limit;
}

void note_deaths_at_memory_limit(uint64_t limit, uint64_t budget) {
  g_budget = budget;
  const std::string tail = fmt::format(
      " mapped since its backend started, of the {} it may map (its limit, {} of data in all: "
      "--max-memory, else the host's available memory, and its threads' stacks)\n",
      format_byte_size(static_cast<double>(budget)), format_byte_size(static_cast<double>(limit)));
  g_note_tail_length = std::min(tail.size(), sizeof g_note_tail);
  std::memcpy(g_note_tail, tail.data(), g_note_tail_length);
  for (std::size_t i = 0; i < kFatalSignals.size(); ++i) {
    struct sigaction action{};
    action.sa_sigaction = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO;
    sigaction(kFatalSignals[i], &action, &g_previous[i]);
  }
}

std::string memory_limit_note(std::string_view log_text) {
  const auto at = log_text.rfind(kMemoryLimitMarker);
  if (at == std::string_view::npos) return "";
  const auto begin = at + kMemoryLimitMarker.size();
  const auto end = log_text.find('\n', begin);
  return std::string(log_text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
}

void limit_worker_memory(uint64_t max_memory) {
  const uint64_t budget = max_memory > 0 ? max_memory : host_available_bytes().value_or(0);
  if (budget > 0)
    if (const uint64_t limit = limit_process_data(budget + thread_stack_headroom()); limit > 0)
      note_deaths_at_memory_limit(limit, budget);
}

}  // namespace opcert
