// An implementation made of others: each call goes to the first member that takes it. The
// production keys that choose a kernel per call (cuda.attention.tuned) are lists in the order
// measured fastest, so that the choice is data here, not branches in each key.
#pragma once

#include <opcert/sdk/backend.h>

#include <vector>

namespace opcert::cuda {

/// An implementation with `key`, `op` and `description` whose query, run and library_call are
/// those of the first of `members` (same op) whose query says yes; declined with every member's
/// reason when none does. library_call names the member that runs ("<key>: <its library call>").
sdk::Implementation first_taker(std::string key, std::string op, std::string description,
                                std::vector<sdk::Implementation> members);

}  // namespace opcert::cuda
