// The descriptors a child started by the runner (`opcert worker`, `opcert-plugin-probe`) speaks
// its protocol on, moved out of a plugin's way: a plugin that prints to stdout would otherwise
// corrupt the protocol.
#pragma once

namespace opcert {

struct ProtocolFds {
  int in = -1;
  int out = -1;
};

/// Keeps the protocol on private descriptors; stdout goes to stderr (the child's log), stdin to
/// /dev/null. A descriptor that could not be kept is -1.
ProtocolFds take_protocol_fds();

}  // namespace opcert
