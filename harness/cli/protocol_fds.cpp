#include "cli/protocol_fds.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace opcert {

ProtocolFds take_protocol_fds() {
  ProtocolFds fds{fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3), fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)};
  std::fflush(stdout);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    close(null);
  }
  return fds;
}

}  // namespace opcert
