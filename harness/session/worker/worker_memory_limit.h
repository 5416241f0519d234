// A worker's own memory limit (docs/RELIABILITY.md, "A runaway plugin"). Once its backend is up,
// the worker caps its data (RLIMIT_DATA: heap and private writable mappings, not the address space
// that CUDA and LibTorch reserve) at what it holds then plus the budget of one case: --max-memory,
// else the host's available memory. A plugin that allocates without end then has an allocation
// refused, instead of taking the host into swap or meeting the kernel's OOM killer; if it dies
// there, the worker's last words in its log say so, and the runner puts them in the CRASHED result.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace opcert {

/// The data this process has mapped (VmData of /proc/self/status), in bytes; 0 when unknown.
uint64_t process_data_bytes();

/// Limits this process's data to what it holds now plus `budget` bytes (RLIMIT_DATA, soft limit;
/// never above a limit already set). Returns the limit set, or 0 when none was (no budget, or
/// unknown). The limit is on mapped data, not on memory in use: see thread_stack_headroom.
uint64_t limit_process_data(uint64_t budget);

/// What the stacks of threads a backend starts in its first cases map (one per hardware thread,
/// and a few more, at RLIMIT_STACK's size each): a worker adds it to a case's budget.
uint64_t thread_stack_headroom();

/// Installs handlers for SIGSEGV, SIGBUS, SIGABRT, SIGILL and SIGFPE that, when the process dies
/// with at least half of `budget` mapped since limit_process_data, write one line to stderr (the
/// worker log) starting with kMemoryLimitMarker, then let the signal's previous action end the
/// process as it would have.
void note_deaths_at_memory_limit(uint64_t limit, uint64_t budget);

/// A worker's limit once its backend is up: `max_memory` (0: the host's available memory) plus the
/// thread stack headroom, with the handlers above; nothing when neither budget is known.
void limit_worker_memory(uint64_t max_memory);

/// What starts the line those handlers write.
inline constexpr std::string_view kMemoryLimitMarker = "opcert worker: died near its memory limit: ";

/// The text after the marker in what a worker wrote to its log (the part since a case began), or
/// "" when it did not die at its limit.
std::string memory_limit_note(std::string_view log_text);

}  // namespace opcert
