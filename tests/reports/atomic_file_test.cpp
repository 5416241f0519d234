#include <gtest/gtest.h>

#include <set>

#include "reports/report_writer.h"
#include "sample_report.h"
#include "test_support.h"

namespace opcert {
namespace {

std::set<std::string> names_in(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

TEST(WriteFileAtomically, CreatesTheFileAndLeavesNoTemporary) {
  test::ScratchDir dir;
  const auto path = dir.path() / "report.json";
  write_file_atomically(path, "{\"a\": 1}\n");
  EXPECT_EQ(test::read_file(path), "{\"a\": 1}\n");
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"report.json"});
}

TEST(WriteFileAtomically, ReplacesAnExistingFileWhole) {
  test::ScratchDir dir;
  const auto path = dir.path() / "summary.md";
  test::write_file(path, std::string(10000, 'x'));
  write_file_atomically(path, "short");
  EXPECT_EQ(test::read_file(path), "short");
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"summary.md"});
}

TEST(WriteFileAtomically, WritesEmptyText) {
  test::ScratchDir dir;
  write_file_atomically(dir.path() / "empty", "");
  EXPECT_EQ(std::filesystem::file_size(dir.path() / "empty"), 0u);
}

TEST(WriteFileAtomically, FailureNamesThePath) {
  test::ScratchDir dir;
  const auto path = dir.path() / "missing-dir" / "junit.xml";
  try {
    write_file_atomically(path, "x");
    FAIL() << "writing into a missing directory must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

TEST(ReportWriters, AllWriteTheirFilesAndNothingElse) {
  test::ScratchDir dir;
  const auto report = test::sample_report();
  const auto writers = all_report_writers();
  ASSERT_EQ(writers.size(), 3u);
  EXPECT_EQ(writers[0]->file_name(), "report.json");
  EXPECT_EQ(writers[1]->file_name(), "junit.xml");
  EXPECT_EQ(writers[2]->file_name(), "summary.md");
  for (const auto& w : writers) w->write(report, dir.path());
  EXPECT_EQ(names_in(dir.path()), (std::set<std::string>{"report.json", "junit.xml", "summary.md"}));
  // A second run over the same directory replaces them.
  for (const auto& w : writers) w->write(report, dir.path());
  EXPECT_EQ(names_in(dir.path()).size(), 3u);
}

}  // namespace
}  // namespace opcert
