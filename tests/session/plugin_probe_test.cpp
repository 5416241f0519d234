// PluginProbe against scripted probe children (/bin/sh), so each way a child can end is tested
// without a plugin: dying in a step, hanging in one, ending outside any, and the retry without
// the step that ended the first child. The real children, with real plugins, are tested in
// tests/cli/plugin_probe_e2e_test.cpp.
#include <gtest/gtest.h>

#include "session/worker/plugin_probe.h"

namespace opcert {
namespace {

using namespace std::chrono_literals;

// A probe whose child is `sh -c script`; the steps to skip arrive as "$1 $2 ..." (--skip-plugin-step S).
PluginProbe probe(const std::string& script, std::chrono::milliseconds timeout = 10s) {
  return PluginProbe(ProbeLaunch{"/bin/sh", {"-c", script, "sh"}, timeout});
}

std::string begin(const std::string& step) { return "printf '{\"event\":\"begin\",\"step\":\"" + step + "\"}\\n'; "; }
std::string done(const std::string& step) { return "printf '{\"event\":\"done\",\"step\":\"" + step + "\"}\\n'; "; }
const std::string kEnd = "printf '{\"event\":\"end\",\"step\":\"\"}\\n'; ";

TEST(PluginProbe, AStepThatKillsTheChildIsRefusedAndTheRestIsProbedWithoutIt) {
  // The first child dies in "init b"; the second, told to skip it, finishes.
  const std::string script = begin("load a") + done("load a") +
                             "if [ \"$2\" != 'init b' ]; then " + begin("init b") +
                             "echo 'about to crash' >&2; kill -SEGV $$; fi; " + begin("init c") + done("init c") + kEnd;
  PluginProbe p = probe(script);
  EXPECT_FALSE(p.before("load a").has_value());
  EXPECT_FALSE(p.before("init c").has_value());
  const auto refused = p.before("init b");
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->reason, "not loaded: the plugin probe died with SIGSEGV while initialising it");
  EXPECT_EQ(refused->stderr_tail, std::vector<std::string>{"about to crash"});
  // A step no child met is never taken.
  const auto unseen = p.before("init d");
  ASSERT_TRUE(unseen.has_value());
  EXPECT_NE(unseen->reason.find("did not meet it"), std::string::npos) << unseen->reason;
}

TEST(PluginProbe, AStepThatHangsIsKilledAtTheTimeoutAndRefused) {
  const std::string script = "if [ \"$2\" != 'load h' ]; then " + begin("load h") + "exec sleep 30; fi; " + kEnd;
  PluginProbe p = probe(script, 300ms);
  const auto refused = p.before("load h");
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->reason,
            "not loaded: loading its library (dlopen, its static constructors) took longer than the plugin probe's 0.3 s "
            "(--probe-timeout, OPCERT_PROBE_TIMEOUT); the probe was killed");
}

TEST(PluginProbe, AnExitInAStepNamesItsCodeAndKeepsTheLastLinesOfStderr) {
  const std::string script = "if [ \"$2\" != 'list x' ]; then " + begin("list x") +
                             "for i in 1 2 3 4 5 6 7; do echo \"line $i\" >&2; done; exit 4; fi; " + kEnd;
  PluginProbe p = probe(script);
  const auto refused = p.before("list x");
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->reason, "not loaded: the plugin probe exited with code 4 while listing its backends");
  EXPECT_EQ(refused->stderr_tail, (std::vector<std::string>{"line 3", "line 4", "line 5", "line 6", "line 7"}));
}

TEST(PluginProbe, AChildThatEndsOutsideAnyStepLoadsNothingItDidNotFinish) {
  const std::string script = begin("load a") + done("load a") + "echo 'opcert: error: bad flag' >&2; exit 2";
  PluginProbe p = probe(script);
  EXPECT_FALSE(p.before("load a").has_value());
  const auto refused = p.before("load b");
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->reason, "not loaded: the plugin probe exited with code 2 before it was done with this plugin");
  EXPECT_EQ(refused->stderr_tail, std::vector<std::string>{"opcert: error: bad flag"});
}

// A listing the child finished with nothing listed is not taken again by the runner (the Python
// bridge's listing starts an interpreter); one with entries, or one the child did not finish, is.
TEST(PluginProbe, AListingTheChildFinishedEmptyIsKnownToListNothing) {
  const auto listed = [](const std::string& step, int count) {
    return "printf '{\"event\":\"listed\",\"step\":\"" + step + "\",\"count\":" + std::to_string(count) + "}\\n'; ";
  };
  const std::string script = begin("list empty") + listed("list empty", 0) + done("list empty") + begin("list full") +
                             listed("list full", 2) + done("list full") + begin("list cut") + listed("list cut", 0) +
                             "exit 3";
  PluginProbe p = probe(script);
  EXPECT_TRUE(p.lists_nothing("list empty"));
  EXPECT_FALSE(p.before("list empty").has_value());
  EXPECT_FALSE(p.lists_nothing("list full"));
  EXPECT_FALSE(p.lists_nothing("list cut")) << "a listing whose child died in it is not known to be empty";
  EXPECT_FALSE(p.lists_nothing("list never"));
}

TEST(PluginProbe, AChildThatCannotStartRefusesEveryStep) {
  PluginProbe p(ProbeLaunch{"/nonexistent/opcert", {"probe-plugins"}, 1s});
  const auto refused = p.before("load a");
  ASSERT_TRUE(refused.has_value());
  EXPECT_TRUE(refused->reason.starts_with("not loaded: the plugin probe ")) << refused->reason;
}

}  // namespace
}  // namespace opcert
