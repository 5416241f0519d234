#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "session/worker/worker_protocol.h"

namespace opcert {
namespace {

TEST(WorkerProtocol, JobIsOneJsonLine) {
  const JobRequest job{"softmax.f32.\"odd\"\nid", "cpu.softmax.rowwise"};
  const std::string line = encode_job(job);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "an embedded newline must be escaped: " << line;
  EXPECT_EQ(line, "{\"case\":\"softmax.f32.\\\"odd\\\"\\nid\",\"impl\":\"cpu.softmax.rowwise\"}\n");
  EXPECT_EQ(decode_job(line), job);
  EXPECT_EQ(decode_job(line.substr(0, line.size() - 1)), job) << "the newline is optional";
}

TEST(WorkerProtocol, ABenchJobAndItsAnswerCarryTheirBenchPart) {
  const JobRequest job{"softmax.d2", "cpu.softmax.rowwise", {{"copy_baseline", false}, {"peer_mean_s", 2.5e-6}}};
  EXPECT_EQ(decode_job(encode_job(job)), job);
  EXPECT_THROW(decode_job("{\"case\":\"a\",\"impl\":\"b\",\"bench\":3}"), std::runtime_error);

  CaseResult check;
  check.backend = "cpu";
  check.impl_key = "cpu.softmax.rowwise";
  check.case_id = "softmax.d2";
  check.status = Status::kPassed;
  const WorkerAnswer answer = decode_answer(encode_answer({check, {{"checked", true}}}));
  EXPECT_EQ(answer.result.case_id, "softmax.d2");
  EXPECT_EQ(answer.result.status, Status::kPassed);
  EXPECT_EQ(answer.bench, nlohmann::json({{"checked", true}}));
  // A conformance answer has none, and reads as a result alone.
  EXPECT_TRUE(decode_answer(encode_result(check)).bench.is_null());
  EXPECT_EQ(decode_result(encode_answer({check, {{"checked", true}}})).case_id, "softmax.d2");
}

TEST(WorkerProtocol, BadJobLinesSayWhatIsWrong) {
  EXPECT_THROW(decode_job("not json"), std::runtime_error);
  EXPECT_THROW(decode_job("[1,2]"), std::runtime_error);
  try {
    decode_job("{\"case\":\"a\"}");
    FAIL() << "a job without impl must be refused";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'impl'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(decode_job("{\"case\":1,\"impl\":\"x\"}"), std::runtime_error);
}

TEST(WorkerProtocol, HelloAndFatalRoundTrip) {
  const WorkerHello ready{"cpu", 142, ""};
  EXPECT_EQ(encode_hello(ready), "{\"backend\":\"cpu\",\"cases\":142,\"opcert_worker\":1}\n");
  EXPECT_EQ(decode_hello(encode_hello(ready)), ready);

  WorkerHello fatal;
  fatal.fatal = "no suite named 'x'";
  EXPECT_EQ(encode_hello(fatal), "{\"fatal\":\"no suite named 'x'\",\"opcert_worker\":1}\n");
  EXPECT_EQ(decode_hello(encode_hello(fatal)), fatal);
}

TEST(WorkerProtocol, HelloFromAnotherProtocolVersionIsRefused) {
  try {
    decode_hello("{\"opcert_worker\":2,\"backend\":\"cpu\",\"cases\":1}");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("protocol 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(decode_hello("{\"backend\":\"cpu\",\"cases\":1}"), std::runtime_error);
  EXPECT_THROW(decode_hello("{\"opcert_worker\":1,\"backend\":\"cpu\"}"), std::runtime_error);
}

TEST(WorkerProtocol, ResultRoundTripKeepsEveryField) {
  CaseResult r;
  r.backend = "cpu";
  r.impl_key = "cpu.softmax.rowwise";
  r.suite = "smoke";
  r.case_id = "softmax.f32.r64n1000";
  r.op = "softmax";
  r.dtype = "fp32";
  r.status = Status::kFailed;
  r.message = "y: 3 of 64000 out of bound";
  TensorMetrics m;
  m.name = "y";
  m.checked = 64000;
  m.total = 64000;
  m.mismatches = 3;
  m.max_abs = std::nan("");
  m.rmse = 0.25;
  m.worst = {17, 1.5, 1.25, 0.01};
  r.metrics.push_back(m);
  r.duration_ms = 3.5;
  r.repro = "opcert run --backend cpu";
  r.peer_rmse = 0.125;
  r.alignment_ratio = 2.0;

  const std::string line = encode_result(r);
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  const CaseResult back = decode_result(line);
  EXPECT_EQ(back.backend, "cpu");
  EXPECT_EQ(back.impl_key, r.impl_key);
  EXPECT_EQ(back.case_id, r.case_id);
  EXPECT_EQ(back.status, Status::kFailed);
  EXPECT_EQ(back.message, r.message);
  ASSERT_EQ(back.metrics.size(), 1u);
  EXPECT_TRUE(std::isnan(back.metrics[0].max_abs));
  EXPECT_EQ(back.metrics[0].mismatches, 3);
  EXPECT_EQ(back.metrics[0].worst.index, 17);
  EXPECT_DOUBLE_EQ(back.metrics[0].worst.expected, 1.25);
  EXPECT_DOUBLE_EQ(back.duration_ms, 3.5);
  EXPECT_EQ(back.repro, r.repro);
  EXPECT_EQ(back.alignment_ratio, 2.0);
  EXPECT_THROW(decode_result("{\"backend\":\"cpu\"}"), std::exception);
}

TEST(WorkerProtocol, InvalidUtf8InAMessageDoesNotBreakTheLine) {
  CaseResult r;
  r.backend = "cpu";
  r.impl_key = "k";
  r.case_id = "c";
  r.message = std::string("bad byte \xff here");
  const CaseResult back = decode_result(encode_result(r));
  EXPECT_EQ(back.message.substr(0, 9), "bad byte ");
  EXPECT_NE(back.message, r.message) << "the invalid byte is replaced";
}

}  // namespace
}  // namespace opcert

namespace opcert {
namespace {

TEST(WorkerProtocol, PhaseMarksRoundTripAndNothingElseIsOne) {
  EXPECT_EQ(decode_phase_mark(encode_phase_mark(true)), std::optional<bool>(true));
  EXPECT_EQ(decode_phase_mark(encode_phase_mark(false)), std::optional<bool>(false));
  EXPECT_EQ(encode_phase_mark(true).back(), '\n') << "one message, one line";
  EXPECT_EQ(decode_phase_mark(R"({"phase":"backend","case":"x"})"), std::nullopt);
  EXPECT_EQ(decode_phase_mark(R"({"phase":"other"})"), std::nullopt);
  EXPECT_EQ(decode_phase_mark(encode_result(CaseResult{})), std::nullopt) << "a result is never a mark";
}

}  // namespace
}  // namespace opcert
