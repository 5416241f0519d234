// What the ranks of a job agree on around a run: whether every rank could set it up, and rank 0's
// exit code at the end. Shared by collectives (session/rank_session), compute cases across ranks
// (run/conformance_runner) and certify (cli/device_flags).
#pragma once

#include <chrono>
#include <exception>

#include "ranks/world.h"

namespace opcert {

/// How long the ranks wait for each other to set up: they load backends and suites at their own pace.
inline constexpr std::chrono::seconds kRankStartupWait{120};

/// Every rank says whether its setup failed (`setup_error`: a bad input, or anything else) and
/// learns whether all could. A rank's own error is rethrown there; a rank whose setup went well but
/// another's did not throws InputError (exit 2) when that was bad input, else std::runtime_error,
/// saying that another rank's message says why: every rank ends at once, none waits for the others.
/// False when not every rank arrived within kRankStartupWait (after rethrowing this rank's own
/// error, if any): the caller ends the job its way.
[[nodiscard]] bool agree_on_setup(World& world, std::exception_ptr setup_error);

/// Rank 0's `code` to every rank (each returns it), or 1 when it never comes. Rank 0 ends the job
/// itself when it fails, so the long wait is only a backstop.
int share_exit_code(World& world, int code);

}  // namespace opcert
