#include "reports/results_jsonl.h"

#include "model/case_result_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sample_report.h"
#include "test_support.h"

namespace opcert {
namespace {

using test::ScratchDir;

size_t count_lines(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST(ResultsJsonl, RoundTripsEveryFieldIncludingNanAndInfinity) {
  ScratchDir dir;
  const auto sample = test::sample_report().results;
  {
    ResultsJsonl stream(dir.path(), ResultsJsonl::Mode::kTruncate);
    for (const auto& r : sample) stream.append(r);
    EXPECT_EQ(stream.written(), sample.size());
    EXPECT_EQ(stream.path(), dir.path() / "results.jsonl");
  }
  const std::string text = test::read_file(dir.path() / "results.jsonl");
  EXPECT_EQ(count_lines(text), sample.size());

  bool dropped = true;
  const auto back = read_results_jsonl(dir.path() / "results.jsonl", &dropped);
  EXPECT_FALSE(dropped);
  ASSERT_EQ(back.size(), sample.size());
  const CaseResult& failed = back[1];  // cpu g2: rmse NaN, max_rel inf, ratio NaN
  EXPECT_EQ(failed.case_id, "g2");
  EXPECT_EQ(failed.status, Status::kFailed);
  EXPECT_EQ(failed.message, test::kHostileMessage);
  ASSERT_EQ(failed.metrics.size(), 1u);
  EXPECT_TRUE(std::isnan(failed.metrics[0].rmse));
  EXPECT_TRUE(std::isinf(failed.metrics[0].max_rel) && failed.metrics[0].max_rel > 0);
  EXPECT_EQ(failed.metrics[0].mismatches, 3);
  EXPECT_EQ(failed.metrics[0].worst.index, 7);
  EXPECT_DOUBLE_EQ(failed.metrics[0].worst.expected, 1.25);
  ASSERT_TRUE(failed.alignment_ratio.has_value());
  EXPECT_TRUE(std::isnan(*failed.alignment_ratio));
  EXPECT_DOUBLE_EQ(failed.peer_rmse.value(), 0.25);
  EXPECT_DOUBLE_EQ(back[0].alignment_ratio.value(), 2.5);
  EXPECT_EQ(back[0].repro, sample[0].repro);
  EXPECT_FALSE(back[3].alignment_ratio.has_value());  // skipped: no torch case
  EXPECT_EQ(back[3].message, sample[3].message);
  // The NaN travels as the string "nan" (JSON has no NaN).
  EXPECT_NE(text.find("\"rmse\":\"nan\""), std::string::npos);
}

TEST(ResultsJsonl, TheDeviceAndRankRoundTripAndAResultWithoutThemReadsAsBefore) {
  ScratchDir dir;
  auto sample = test::sample_report().results;
  sample[0].device = DeviceTag{3, "test device 3", "node7", "GPU-9cf20265-0000-1111-2222-333333333333", "0000:1b:00.0"};
  sample[0].rank = 1;
  sample[2].device = DeviceTag{0, "host CPU", "node7"};  // an identity its backend did not give
  {
    ResultsJsonl stream(dir.path(), ResultsJsonl::Mode::kTruncate);
    for (const auto& r : sample) stream.append(r);
  }
  const auto back = read_results_jsonl(dir.path() / "results.jsonl");
  ASSERT_EQ(back.size(), sample.size());
  EXPECT_EQ(back[0].device, sample[0].device);
  EXPECT_EQ(back[0].rank, 1);
  EXPECT_EQ(back[2].device, sample[2].device);
  EXPECT_FALSE(back[1].device.has_value()) << "untagged: no device, as in reports before schema 2.2";
  // Unknown is null in the file (schema 2.10), and a device of an older report, without the two
  // fields, reads as unknown.
  const std::string text = test::read_file(dir.path() / "results.jsonl");
  EXPECT_NE(text.find(R"("pci_bus_id":null)"), std::string::npos) << text;
  const CaseResult old = case_result_from_json(nlohmann::json::parse(
      R"({"backend": "b", "impl": "b.x.y", "suite": "s", "case": "c", "op": "softmax", "dtype": "fp32", "status": "PASSED",
          "message": "", "metrics": [], "sampled": false, "out_of_bounds_write": false, "duration_ms": 1, "repro": "",
          "device": {"index": 1, "name": "d", "host": "h"}})"));
  ASSERT_TRUE(old.device.has_value());
  EXPECT_EQ(old.device->uuid, "");
  EXPECT_EQ(old.device->pci_bus_id, "");
}

TEST(ResultsJsonl, PhasesRoundTripAndABadOneIsRefusedNamingIt) {
  ScratchDir dir;
  auto sample = test::sample_report().results;
  sample[0].phases = PhaseTimes{0.25, 0.5, 0.125, 2.0, 0.0625, 3.0, 1.5, 0.75};
  {
    ResultsJsonl stream(dir.path(), ResultsJsonl::Mode::kTruncate);
    for (const auto& r : sample) stream.append(r);
  }
  const auto back = read_results_jsonl(dir.path() / "results.jsonl");
  ASSERT_TRUE(back[0].phases.has_value());
  const PhaseTimes& p = *back[0].phases;
  EXPECT_EQ(std::vector<double>({p.generate, p.copy, p.launch, p.reference, p.check, p.worker, p.startup, p.ipc}),
            std::vector<double>({0.25, 0.5, 0.125, 2.0, 0.0625, 3.0, 1.5, 0.75}));
  EXPECT_FALSE(back[1].phases.has_value()) << "none written, none read: as in reports before schema 2.8";

  for (const auto& [value, problem] : std::vector<std::pair<nlohmann::json, std::string>>{
           {-0.5, "phases.copy: expected seconds"}, {"inf", "phases.copy: expected seconds"}, {"x", "phases.copy: expected a number"}}) {
    nlohmann::json j = to_json(sample[0]);
    j["phases"]["copy"] = value;
    try {
      (void)case_result_from_json(j);
      ADD_FAILURE() << "accepted phases.copy " << value.dump();
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
    }
  }
  nlohmann::json j = to_json(sample[0]);
  j["phases"].erase("ipc");
  EXPECT_THROW((void)case_result_from_json(j), std::runtime_error);
}

TEST(ResultsJsonl, EachAppendIsOnDiskBeforeTheStreamCloses) {
  ScratchDir dir;
  ResultsJsonl stream(dir.path(), ResultsJsonl::Mode::kTruncate);
  stream.append(test::result("cpu", "gemm", "a", Status::kPassed, 0.1));
  EXPECT_EQ(count_lines(test::read_file(stream.path())), 1u);
  stream.append(test::result("cpu", "gemm", "b", Status::kPassed, 0.1));
  const auto back = read_results_jsonl(stream.path());
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].case_id, "b");
}

TEST(ResultsJsonl, ReaderDropsATruncatedLastLine) {
  ScratchDir dir;
  {
    ResultsJsonl stream(dir.path(), ResultsJsonl::Mode::kTruncate);
    stream.append(test::result("cpu", "gemm", "a", Status::kPassed, 0.1));
    stream.append(test::result("cpu", "gemm", "b", Status::kFailed, 0.2));
  }
  const auto path = dir.path() / "results.jsonl";
  // A killed writer: half a line, no newline.
  test::write_file(path, test::read_file(path) + R"({"backend":"cpu","impl":"cpu.gemm","suite":"sm)");
  bool dropped = false;
  const auto back = read_results_jsonl(path, &dropped);
  EXPECT_TRUE(dropped);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].status, Status::kFailed);
}

TEST(ResultsJsonl, ReaderNamesPathAndLineOfABadLine) {
  ScratchDir dir;
  const auto path = dir.path() / "results.jsonl";
  const std::string good = test::read_file([&] {
    ResultsJsonl stream(dir.path(), ResultsJsonl::Mode::kTruncate);
    stream.append(test::result("cpu", "gemm", "a", Status::kPassed, 0.1));
    return stream.path();
  }());
  test::write_file(path, good + "\n{not json}\n" + good);
  try {
    read_results_jsonl(path);
    FAIL() << "a bad line in the middle must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string() + ":3:"), std::string::npos) << e.what();
  }
  // Valid JSON that is not a result: named too.
  test::write_file(path, good + R"({"backend":"cpu"})" + "\n");
  try {
    read_results_jsonl(path);
    FAIL() << "an incomplete result must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string() + ":2:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("impl"), std::string::npos) << e.what();
  }
}

TEST(ResultsJsonl, AppendModeKeepsLinesAndCutsAPartialOne) {
  ScratchDir dir;
  const auto path = dir.path() / "results.jsonl";
  {
    ResultsJsonl stream(dir.path(), ResultsJsonl::Mode::kTruncate);
    stream.append(test::result("cpu", "gemm", "a", Status::kPassed, 0.1));
  }
  test::write_file(path, test::read_file(path) + R"({"backend":"cp)");
  {
    ResultsJsonl stream(dir.path(), ResultsJsonl::Mode::kAppend);
    stream.append(test::result("cpu", "gemm", "b", Status::kPassed, 0.1));
  }
  bool dropped = true;
  const auto back = read_results_jsonl(path, &dropped);
  EXPECT_FALSE(dropped);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].case_id, "a");
  EXPECT_EQ(back[1].case_id, "b");
}

TEST(ResultsJsonl, TruncateModeStartsEmptyAndCreatesTheDirectory) {
  ScratchDir dir;
  const auto out = dir.path() / "nested" / "out";
  {
    ResultsJsonl stream(out, ResultsJsonl::Mode::kTruncate);
    stream.append(test::result("cpu", "gemm", "a", Status::kPassed, 0.1));
  }
  { ResultsJsonl stream(out, ResultsJsonl::Mode::kTruncate); }
  EXPECT_TRUE(read_results_jsonl(out / "results.jsonl").empty());
}

TEST(ResultsJsonl, MissingFileThrowsNamingIt) {
  ScratchDir dir;
  EXPECT_THROW(read_results_jsonl(dir.path() / "nope.jsonl"), std::runtime_error);
}

}  // namespace
}  // namespace opcert

namespace opcert {

// Found by fuzzing (tests/fuzz/): an integer field holding a huge or fractional number was
// converted regardless, which is undefined behaviour; it is refused, naming the field.
TEST(ResultsJsonl, AnIntegerFieldOutOfRangeIsRefusedNamingIt) {
  CaseResult r = test::result("cpu", "gemm", "a", Status::kPassed, 0.1);
  r.metrics.push_back(TensorMetrics{});
  r.metrics[0].name = "c";
  for (const char* bad : {"3.77778e+52", "1.5", "-9.3e18"}) {
    nlohmann::json j = to_json(r);
    j["metrics"][0]["checked"] = nlohmann::json::parse(bad);
    try {
      (void)case_result_from_json(j);
      FAIL() << "checked = " << bad << " was accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("metrics[0].checked: expected a whole number in range"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace opcert
