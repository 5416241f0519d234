// work_model's dispatch (harness/opkit/work_model.h): an op without a work model is refused. Each
// op's work model is tested in tests/ops/<op>/.
#include "opkit/work_model.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace opcert {
namespace {

TEST(WorkModel, UnknownOpIsRejected) {
  Case c;
  c.op = "all_reduce";
  EXPECT_THROW(work_model(c), std::invalid_argument);
  c.op = "nonsense";
  EXPECT_THROW(work_model(c), std::invalid_argument);
}

}  // namespace
}  // namespace opcert
