// The flags `opcert run` and `opcert bench` both take, declared once (docs/CLI.md): the common
// options, the suite and its cases, the output folder and --resume, the seed, --max-memory, the
// implementations, the peer, --timeout, and what follows the session (--baseline with its gates,
// the history). Each verb words a few of their helps for what it does with them.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "cli/cli_context.h"
#include "cli/compare_flags.h"
#include "cli/history_flags.h"
#include "ranks/world.h"
#include "session/planning/session_settings.h"

namespace opcert {

struct SessionFlags {
  CommonOptions options;
  std::string suite;
  std::string filter;
  std::string out;
  std::string resume;      // --resume DIR
  uint64_t seed = 1;
  std::string max_memory;  // --max-memory SIZE, "" for none
  std::string impl;
  PeerOptions peer;
  double timeout_s = 60.0;
  BaselineFlags baseline;
  HistoryFlags history;
};

/// What a verb's help says of the flags it words its own way.
struct SessionFlagHelp {
  std::string suite;       ///< --suite
  std::string filter;      ///< --filter
  std::string resume;      ///< --resume
  std::string impl;        ///< --impl
  std::string peer_gives;  ///< what the peer gives ("the alignment figure")
};

/// Adds the common options, --suite (its default `suite_default`), --filter, --out, --resume,
/// --seed, --max-memory, --impl, --peer and --no-peer, in that order.
void add_session_flags(CLI::App& verb, SessionFlags& flags, const std::string& suite_default,
                       const SessionFlagHelp& help);

/// Adds --timeout (seconds), its help `help`.
void add_timeout_flag(CLI::App& verb, SessionFlags& flags, const std::string& help);

/// Adds --baseline with its gates and the history flags: what follows a session.
void add_after_session_flags(CLI::App& verb, SessionFlags& flags);

/// --timeout in milliseconds, rounded up.
std::chrono::milliseconds timeout_of(const SessionFlags& flags);

/// The session's selection, outputs and seed from the flags: filter, implementations, the output
/// folder (of --resume, else --out, else out/<`started`>; InputError when --resume and --out name
/// two folders) and whether to resume, the seed; `what` names the verb ("run", "bench").
void apply_session_flags(SessionSettings& s, bool& resume, const SessionFlags& flags,
                         std::chrono::system_clock::time_point started, const std::string& what);

/// What follows a session that ended with `exit_code`: with --baseline, the comparison of
/// `out_dir` with it, whose gates give the exit code when the session's was 0; then, when
/// `record` (rank 0), the run added to the history. Returns the exit code.
int after_session(int exit_code, const SessionFlags& flags, const std::filesystem::path& out_dir,
                  const PlatformCatalog& platforms, bool record);

/// A collective session across the ranks of `world`: runs `session`, then what follows it
/// (after_session, the history on rank 0), and finalizes the world either way (every rank throws
/// alike, the same arguments, so they end together). Returns the exit code.
int across_ranks(World& world, const SessionFlags& flags, const std::filesystem::path& out_dir,
                 const PlatformCatalog& platforms, const std::function<int()>& session);

}  // namespace opcert
