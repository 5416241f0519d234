#include <gtest/gtest.h>

#include "reports/report_writer.h"
#include "sample_report.h"
#include "test_support.h"

namespace opcert {
namespace {

const std::filesystem::path kXsd = std::filesystem::path(OPCERT_SCHEMA_DIR) / "junit.xsd";

class Junit : public ::testing::Test {
 protected:
  void SetUp() override {
    make_junit_report_writer()->write(test::sample_report(), dir_.path());
    xml_ = test::read_file(dir_.path() / "junit.xml");
  }
  bool contains(const std::string& s) const { return xml_.find(s) != std::string::npos; }
  // The text of the element or attribute at `xpath`, as a real XML parser reads it.
  std::string xpath(const std::string& expr) const {
    const auto r = test::run_command("xmllint --xpath " + test::shell_quote("string(" + expr + ")") + " " +
                                     test::shell_quote((dir_.path() / "junit.xml").string()));
    std::string text = r.output;
    if (!text.empty() && text.back() == '\n') text.pop_back();  // xmllint ends its output with one
    return text;
  }
  test::CommandResult validate(const std::filesystem::path& file) const {
    return test::run_command("xmllint --noout --schema " + test::shell_quote(kXsd.string()) + " " +
                             test::shell_quote(file.string()));
  }
  test::ScratchDir dir_;
  std::string xml_;
};

TEST_F(Junit, ValidatesAgainstTheXsd) {
  if (!test::have_xmllint()) GTEST_SKIP() << "xmllint not found: apt-get install libxml2-utils";
  const auto r = validate(dir_.path() / "junit.xml");
  EXPECT_EQ(r.exit_code, 0) << r.output << "\n" << xml_;
}

TEST_F(Junit, XsdRejectsWhatIsNotOurJunit) {
  if (!test::have_xmllint()) GTEST_SKIP() << "xmllint not found: apt-get install libxml2-utils";
  std::string bad = xml_;
  bad.replace(bad.find("type=\"FAILED\""), 13, "type=\"BROKEN\"");
  bad.replace(bad.find(" tests=\"11\""), 11, "");
  test::write_file(dir_.path() / "bad.xml", bad);
  const auto r = validate(dir_.path() / "bad.xml");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("BROKEN"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'tests' is required"), std::string::npos) << r.output;
}

TEST_F(Junit, TotalsPerRunAndPerBackend) {
  // 11 results of 250 ms; failures = FAILED + MISTRUSTED, errors = ERROR + CRASHED + TIMEOUT.
  EXPECT_TRUE(contains(R"(<testsuites name="opcert" tests="11" failures="2" errors="3" skipped="1" time="2.750">)"))
      << xml_;
  EXPECT_TRUE(contains(R"(<testsuite name="cpu" tests="5" failures="2" errors="1" skipped="1" time="1.250" )"
                       R"(timestamp="2024-05-01T12:00:00Z" hostname="node-1">)"))
      << xml_;
  EXPECT_TRUE(contains(R"(<testsuite name="acme" tests="3" failures="0" errors="2" skipped="0" time="0.750")")) << xml_;
  EXPECT_TRUE(contains(R"(<testsuite name="torch" tests="3" failures="0" errors="0" skipped="0" time="0.750")")) << xml_;
}

TEST_F(Junit, PropertiesRecordProvenance) {
  EXPECT_TRUE(contains(R"(<property name="seed" value="7"/>)"));
  EXPECT_TRUE(contains(R"(<property name="platform" value="h100-sxm"/>)"));
  EXPECT_TRUE(contains(R"(<property name="opcert_version" value="0.1.0"/>)"));
  EXPECT_TRUE(contains(R"(<property name="backend_sha256" value=")" + std::string(64, 'b') + "\"/>"));
  EXPECT_TRUE(contains(R"(<property name="backend_library_path" value="/opt/acme/libacme.so"/>)"));
  EXPECT_TRUE(contains(R"(<property name="peer" value="true"/>)"));
  EXPECT_TRUE(contains(R"(<property name="git_commit" value="abc1234"/>)"));
}

TEST_F(Junit, EachStatusHasItsElement) {
  EXPECT_TRUE(contains(R"(<testcase classname="cpu.gemm" name="g1" time="0.250"/>)")) << xml_;
  EXPECT_TRUE(contains(R"(<failure message="output is 98% zeros" type="MISTRUSTED">)")) << xml_;
  EXPECT_TRUE(contains(R"(<skipped message="softmax over N &gt; 65536 unsupported"/>)")) << xml_;
  EXPECT_TRUE(contains(R"x(<error message="worker died: signal 11 (SIGSEGV)" type="CRASHED">)x")) << xml_;
  EXPECT_TRUE(contains(R"(<error message="ran past 60 s" type="TIMEOUT">)")) << xml_;
  EXPECT_TRUE(contains(R"(<error message="acme: out of memory" type="ERROR">)")) << xml_;
}

TEST_F(Junit, HostileTextIsEscaped) {
  // < > & " ' escaped in the attribute; the control characters made visible, since XML 1.0 cannot
  // carry them at all.
  EXPECT_TRUE(contains(R"(<failure message="bound &lt;1e-3&gt; &amp; &quot;quoted&quot; &apos;single&apos; \x01 bell\x07 | pipe `tick`" type="FAILED">)"))
      << xml_;
  EXPECT_EQ(xml_.find('\x01'), std::string::npos);
  EXPECT_EQ(xml_.find('\x07'), std::string::npos);
  if (!test::have_xmllint()) GTEST_SKIP() << "xmllint not found: cannot read the document back";
  EXPECT_EQ(xpath("//testcase[@name='g2']/failure/@message"),
            "bound <1e-3> & \"quoted\" 'single' \\x01 bell\\x07 | pipe `tick`");
}

TEST_F(Junit, FailureBodyHasMetricsAndRepro) {
  if (!test::have_xmllint()) GTEST_SKIP() << "xmllint not found: cannot read the document back";
  const std::string body = xpath("//testcase[@classname='cpu.gemm'][@name='g2']/failure");
  EXPECT_NE(body.find("C: 3/64 out of bound (0 NaN/Inf), checked 64 of 64; max_abs nan, max_rel inf"), std::string::npos)
      << body;
  EXPECT_NE(body.find("worst element C[7]: got 1.5, expected 1.25, bound 0.01"), std::string::npos) << body;
  EXPECT_NE(body.find("repro: opcert run --backend cpu --suite smoke --filter '^g2$' --seed 7"), std::string::npos)
      << body;
  const std::string crash = xpath("//testcase[@classname='cpu.softmax'][@name='s2']/error");
  EXPECT_NE(crash.find("repro: opcert run --backend cpu"), std::string::npos) << crash;
}

TEST(JunitNames, SeveralImplementationsOfOneCaseStayDistinct) {
  RunReport report;
  report.results = {test::result("cuda", "attention", "a1", Status::kPassed, 0.1),
                    test::result("cuda", "attention", "a1", Status::kPassed, 0.1),
                    test::result("cuda", "attention", "a2", Status::kPassed, 0.1)};
  report.results[0].impl_key = "cuda.attention.flash";
  report.results[1].impl_key = "cuda.attention.cudnn";
  test::ScratchDir dir;
  make_junit_report_writer()->write(report, dir.path());
  const std::string xml = test::read_file(dir.path() / "junit.xml");
  EXPECT_NE(xml.find(R"(name="a1 [cuda.attention.flash]")"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(name="a1 [cuda.attention.cudnn]")"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(name="a2" )"), std::string::npos) << xml;
}

TEST(JunitNames, EachDeviceAndRankIsItsOwnTestcaseAndClass) {
  RunReport report;
  report.results = {test::result("cpu", "softmax", "s1", Status::kPassed, 0.1),
                    test::result("cpu", "softmax", "s1", Status::kFailed, 0.1),
                    test::result("cpu", "softmax", "s1", Status::kPassed, 0.1)};
  report.results[0].device = DeviceTag{0, "host CPU, cores 0-3", "a"};
  report.results[1].device = DeviceTag{1, "host CPU, cores 4-7", "a"};
  report.results[2].device = DeviceTag{0, "host CPU, cores 0-3", "b"};
  report.results[2].rank = 1;
  test::ScratchDir dir;
  make_junit_report_writer()->write(report, dir.path());
  const std::string xml = test::read_file(dir.path() / "junit.xml");
  EXPECT_NE(xml.find(R"x(classname="cpu.device0.softmax" name="s1 (device 0)")x"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"x(classname="cpu.device1.softmax" name="s1 (device 1)")x"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"x(classname="cpu.rank1.device0.softmax" name="s1 (rank 1 device 0)")x"), std::string::npos) << xml;
}

}  // namespace
}  // namespace opcert
