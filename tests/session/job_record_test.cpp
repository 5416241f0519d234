// The job a run records for --resume (session/job/job_record.h): what makes two runs the same job.
#include "session/job/job_record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model/input_error.h"

namespace opcert {
namespace {

using ::testing::HasSubstr;

RunReport header(uint64_t seed) {
  RunReport r;
  r.suite = "smoke";
  r.suite_sha256 = "ab12";
  r.seed = seed;
  r.started_at = "2026-11-26T10:00:00Z";
  BackendRecord b;
  b.name = "cpu";
  b.version = "1.0";
  b.source = "built-in";
  r.backends.push_back(b);
  return r;
}

TEST(JobRecord, TheSameJobHasTheSameFingerprintAndAnotherSaysWhatDiffers) {
  const SessionSettings s;
  const JobRecord a = job_record(header(1), s, {{"timeout_ms", 60000}});
  EXPECT_EQ(job_difference(a, job_record(header(1), s, {{"timeout_ms", 60000}})), "");
  EXPECT_EQ(job_difference(a, job_record(header(2), s, {{"timeout_ms", 60000}})), "seed: 2 here, 1 in the run being resumed");
  EXPECT_THAT(job_difference(a, job_record(header(1), s, {{"timeout_ms", 1000}})), HasSubstr("verb: "));
  RunReport other = header(1);
  other.backends[0].version = "1.1";
  EXPECT_THAT(job_difference(a, job_record(other, s, {{"timeout_ms", 60000}})), HasSubstr("backends: "));
}

TEST(JobRecord, ItIsWrittenAndReadBackAndAnEditedOneIsRefused) {
  const auto dir = std::filesystem::temp_directory_path() / "opcert-job-record-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  EXPECT_FALSE(read_job_record(dir).has_value());
  const JobRecord a = job_record(header(7), SessionSettings{}, {});
  write_job_record(dir, a);
  const auto back = read_job_record(dir);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->fingerprint, a.fingerprint);
  EXPECT_EQ(back->started_at, "2026-11-26T10:00:00Z");
  std::string text;
  {
    std::ifstream in(dir / kJobFileName);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  text.replace(text.find("\"seed\": 7"), 9, "\"seed\": 8");
  std::ofstream(dir / kJobFileName) << text;
  EXPECT_THROW(read_job_record(dir), InputError);
  std::filesystem::remove_all(dir);
}

TEST(JobRecord, AFileOfTheWrongShapeIsRefusedWithTheReason) {
  const auto dir = std::filesystem::temp_directory_path() / "opcert-job-record-shape-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // A "kind" that is not a string once escaped as a json type_error (found by fuzz.job).
  for (const char* text : {R"({"kind": 5})", R"({"kind": null, "job": {}})", R"([1, 2])", R"("opcert-job")"}) {
    std::ofstream(dir / kJobFileName) << text;
    try {
      read_job_record(dir);
      ADD_FAILURE() << text << " was read";
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), HasSubstr("kind is not \"opcert-job\"")) << text;
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace opcert
