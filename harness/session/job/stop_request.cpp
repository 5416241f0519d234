#include "session/job/stop_request.h"

#include <signal.h>

#include <csignal>

namespace opcert {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;
struct sigaction g_old_int, g_old_term, g_old_pipe;
bool g_installed = false;

extern "C" void on_stop_signal(int signal) { g_stop_signal = signal; }

}  // namespace

void install_stop_handlers() {
  if (g_installed) return;
  struct sigaction stop{};
  stop.sa_handler = on_stop_signal;
  sigemptyset(&stop.sa_mask);
  stop.sa_flags = 0;  // no SA_RESTART: a blocking wait returns EINTR and sees the flag
  sigaction(SIGINT, &stop, &g_old_int);
  sigaction(SIGTERM, &stop, &g_old_term);
  struct sigaction ignore{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &g_old_pipe);
  g_installed = true;
}

void remove_stop_handlers() {
  if (!g_installed) return;
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGPIPE, &g_old_pipe, nullptr);
  g_installed = false;
}

bool stop_requested() { return g_stop_signal != 0; }
int stop_signal() { return g_stop_signal; }
std::string stop_signal_name() {
  const int sig = stop_signal();
  return sig == 0 ? "interrupted" : (sig == SIGTERM ? "SIGTERM" : "SIGINT");
}
void reset_stop_request() { g_stop_signal = 0; }

}  // namespace opcert
