// WorkerSession and WorkerProcess against scripted fake workers (/bin/sh), so every way a worker
// can misbehave is tested without a backend: refusing to start, dying, hanging, garbling.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "session/worker/worker_process.h"
#include "session/worker/worker_protocol.h"
#include "session/worker/worker_session.h"

namespace opcert {
namespace {

using namespace std::chrono_literals;

const std::function<bool()> kNeverStop = [] { return false; };

class WorkerSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "opcert-session-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    c_.id = "softmax.d3";
    c_.op = "softmax";
    c_.suite = "test";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A session whose "worker" is `sh -c script`.
  WorkerLaunch launch(const std::string& script) const {
    WorkerLaunch l;
    l.executable = "/bin/sh";
    l.args = {"-c", script};
    l.log_path = dir_ + "/fake.worker.log";
    l.log_name = "logs/fake.worker.log";
    l.backend = "fake";
    l.expected_cases = 1;
    l.startup_timeout = 5s;
    return l;
  }

  std::string log_text() const {
    std::ifstream in(dir_ + "/fake.worker.log");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

  static constexpr const char* kHello = "printf '{\"opcert_worker\":1,\"backend\":\"fake\",\"cases\":1}\\n'; ";
  std::string dir_;
  Case c_;
  JobRequest job_{"softmax.d3", "fake.softmax"};
};

TEST_F(WorkerSessionTest, AnswerIsTheWorkersResult) {
  CaseResult r;
  r.backend = "fake";
  r.impl_key = "fake.softmax";
  r.case_id = "softmax.d3";
  r.status = Status::kPassed;
  r.duration_ms = 2.5;
  std::string line = encode_result(r);
  line.pop_back();
  WorkerSession session(launch(std::string(kHello) + "while read job; do printf '%s\\n' '" + line + "'; done"));
  for (int i = 0; i < 3; ++i) {
    const auto got = session.run(job_, c_, 5s, kNeverStop);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->status, Status::kPassed) << got->message;
    EXPECT_DOUBLE_EQ(got->duration_ms, 2.5);
  }
  EXPECT_EQ(session.starts(), 1) << "one worker serves every job";
}

TEST_F(WorkerSessionTest, DeathDuringACaseIsCrashedWithTheSignalThenARestart) {
  WorkerSession session(launch(std::string(kHello) + "read job; echo dying >&2; kill -SEGV $$"));
  const auto got = session.run(job_, c_, 5s, kNeverStop);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, Status::kCrashed);
  EXPECT_EQ(got->message, "worker died with SIGSEGV during the case; see logs/fake.worker.log");
  EXPECT_EQ(got->backend, "fake");
  EXPECT_EQ(got->case_id, "softmax.d3");
  EXPECT_EQ(got->impl_key, "fake.softmax");
  EXPECT_EQ(got->op, "softmax");
  const auto again = session.run(job_, c_, 5s, kNeverStop);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, Status::kCrashed);
  EXPECT_EQ(session.starts(), 2) << "a fresh worker for the next job";
  const std::string log = log_text();
  EXPECT_NE(log.find("dying"), std::string::npos) << "the worker's stderr goes to its log: " << log;
  EXPECT_NE(log.find("died with SIGSEGV during case 'softmax.d3'"), std::string::npos) << log;
}

TEST_F(WorkerSessionTest, AHangIsTimeoutAndTheWorkerIsKilled) {
  WorkerSession session(launch(std::string(kHello) + "read job; exec sleep 60"));
  const auto t0 = std::chrono::steady_clock::now();
  const auto got = session.run(job_, c_, 300ms, kNeverStop);
  const auto waited = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, Status::kTimeout);
  EXPECT_NE(got->message.find("0.3 s timeout"), std::string::npos) << got->message;
  EXPECT_GE(got->duration_ms, 300.0);
  EXPECT_LT(waited, 3s);
}

TEST_F(WorkerSessionTest, AWorkerThatCannotStartGivesErrorsWithItsReason) {
  WorkerSession session(launch("printf '{\"opcert_worker\":1,\"fatal\":\"no device found\"}\\n'; exit 2"));
  for (int i = 0; i < 2; ++i) {
    const auto got = session.run(job_, c_, 5s, kNeverStop);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->status, Status::kError);
    EXPECT_EQ(got->message, "the worker for backend 'fake' could not be started: no device found");
  }
  EXPECT_EQ(session.starts(), 1) << "a worker that cannot start is not retried for every job";
}

TEST_F(WorkerSessionTest, ExitBeforeReadyAndWrongSuiteAreStartFailures) {
  {
    WorkerSession session(launch("exit 3"));
    const auto got = session.run(job_, c_, 5s, kNeverStop);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->status, Status::kError);
    EXPECT_NE(got->message.find("exited with code 3 before it was ready"), std::string::npos) << got->message;
  }
  {
    WorkerSession session(launch("printf '{\"opcert_worker\":1,\"backend\":\"fake\",\"cases\":9}\\n'; read x"));
    const auto got = session.run(job_, c_, 5s, kNeverStop);
    ASSERT_TRUE(got);
    EXPECT_NE(got->message.find("loaded 9 cases where the runner has 1"), std::string::npos) << got->message;
  }
  {
    WorkerLaunch l = launch("");
    l.executable = "/nonexistent/opcert";
    WorkerSession session(l);
    const auto got = session.run(job_, c_, 5s, kNeverStop);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->status, Status::kError);
    EXPECT_NE(got->message.find("cannot start /nonexistent/opcert"), std::string::npos) << got->message;
  }
}

TEST_F(WorkerSessionTest, AGarbledAnswerIsAnError) {
  WorkerSession session(launch(std::string(kHello) + "while read job; do echo 'this is not json'; done"));
  const auto got = session.run(job_, c_, 5s, kNeverStop);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, Status::kError);
  EXPECT_NE(got->message.find("could not be read"), std::string::npos) << got->message;
}

TEST_F(WorkerSessionTest, AnAnswerForAnotherCaseIsAnError) {
  CaseResult r;
  r.backend = "fake";
  r.impl_key = "fake.softmax";
  r.case_id = "some.other.case";
  std::string line = encode_result(r);
  line.pop_back();
  WorkerSession session(launch(std::string(kHello) + "read job; printf '%s\\n' '" + line + "'; read x"));
  const auto got = session.run(job_, c_, 5s, kNeverStop);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, Status::kError);
  EXPECT_NE(got->message.find("some.other.case"), std::string::npos) << got->message;
}

TEST_F(WorkerSessionTest, StopEndsTheWaitWithoutAResult) {
  WorkerSession session(launch(std::string(kHello) + "read job; exec sleep 60"));
  const auto t0 = std::chrono::steady_clock::now();
  const auto stop_soon = [t0] { return std::chrono::steady_clock::now() - t0 > 200ms; };
  EXPECT_FALSE(session.run(job_, c_, 30s, stop_soon));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
}

TEST(WorkerProcess, SignalNames) {
  EXPECT_EQ(signal_name(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(signal_name(SIGABRT), "SIGABRT");
  EXPECT_EQ(signal_name(SIGBUS), "SIGBUS");
  EXPECT_EQ(signal_name(63), "signal 63");
}

TEST(WorkerProcess, ExitDescriptions) {
  for (const auto& [script, expected] : std::vector<std::pair<std::string, std::string>>{
           {"exit 0", "exited normally"}, {"exit 4", "exited with code 4"}, {"kill -ABRT $$", "died with SIGABRT"}}) {
    WorkerProcess p("/bin/sh", {"-c", script}, "/dev/null");
    std::string line;
    EXPECT_EQ(p.read_line(line, WorkerProcess::Clock::now() + 5s, nullptr), WorkerProcess::Read::kClosed);
    EXPECT_EQ(p.reap(2s), expected) << script;
  }
}

TEST(WorkerProcess, LinesArriveWholeAcrossReads) {
  WorkerProcess p("/bin/sh", {"-c", "printf 'one\\ntw'; sleep 0.2; printf 'o\\nthree'"}, "/dev/null");
  std::string line;
  const auto deadline = WorkerProcess::Clock::now() + 5s;
  ASSERT_EQ(p.read_line(line, deadline, nullptr), WorkerProcess::Read::kLine);
  EXPECT_EQ(line, "one");
  ASSERT_EQ(p.read_line(line, deadline, nullptr), WorkerProcess::Read::kLine);
  EXPECT_EQ(line, "two");
  EXPECT_EQ(p.read_line(line, deadline, nullptr), WorkerProcess::Read::kClosed) << "a partial last line is no message";
}

}  // namespace
}  // namespace opcert
