// A run's page of the dashboard for a run with --devices: each failing result names its device and
// host, and a table lists every device the run's results ran on, with its UUID and PCI bus id.
#include "dashboard/dashboard_pages.h"

#include <gtest/gtest.h>

namespace opcert {
namespace {

CaseResult on_device(int index, const std::string& case_id, Status status, const std::string& pci) {
  CaseResult r;
  r.backend = "devices";
  r.impl_key = "devices.softmax.reference";
  r.case_id = case_id;
  r.op = "softmax";
  r.dtype = "fp32";
  r.status = status;
  r.device = DeviceTag{index, "test device " + std::to_string(index), "node7", "TEST-DEVICE-" + std::to_string(index), pci};
  return r;
}

DashboardModel model_of(std::vector<CaseResult> results) {
  DashboardModel m;
  StoredRun run;
  run.id = 1;
  run.kind = "run";
  m.runs.push_back(run);
  RunReport report;
  report.results = std::move(results);
  m.reports[1] = report;
  return m;
}

TEST(DashboardRunPage, ShowsEachResultsDeviceAndHost) {
  const DashboardModel m = model_of({on_device(0, "softmax.d2", Status::kPassed, "0000:00:00.0"),
                                     on_device(1, "softmax.d2", Status::kFailed, "")});
  const std::string page = run_page(m, m.runs[0]);
  EXPECT_NE(page.find("<h2>Devices</h2>"), std::string::npos) << page;
  EXPECT_NE(page.find("<td>device 1</td><td>node7</td><td>test device 1</td><td>TEST-DEVICE-1</td><td>unknown</td>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<td>TEST-DEVICE-0</td><td>0000:00:00.0</td>"), std::string::npos) << page;
  // The failing result's row says where it ran.
  EXPECT_NE(page.find("<th>implementation</th><th>device</th>"), std::string::npos) << page;
  EXPECT_NE(page.find("<td>device 1 on node7</td>"), std::string::npos) << page;
}

TEST(DashboardRunPage, AnUntaggedRunHasNoDeviceColumn) {
  CaseResult r = on_device(0, "softmax.d2", Status::kFailed, "");
  r.device.reset();
  const DashboardModel m = model_of({r});
  const std::string page = run_page(m, m.runs[0]);
  EXPECT_EQ(page.find("<h2>Devices</h2>"), std::string::npos) << page;
  EXPECT_EQ(page.find("<th>implementation</th><th>device</th>"), std::string::npos) << page;
  EXPECT_NE(page.find("softmax.d2"), std::string::npos) << "the failure is listed: " << page;
}

}  // namespace
}  // namespace opcert
