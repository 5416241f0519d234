// A test binary that links every op's descriptor but no reference (opcert::op_descriptors, the
// DESCRIPTORS option of opcert_add_gtest) has the whole op table and does not load LibTorch:
// LibTorch's load costs every process about a second of CPU, and ctest starts each test in a
// process of its own (docs/RELIABILITY.md, "The slowest tests").
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "opkit/op_registry.h"

namespace opcert {
namespace {

TEST(OpDescriptors, EveryOpIsRegisteredAndLibTorchIsNotLoaded) {
  EXPECT_GE(registered_ops().size(), 14u) << registered_op_names();  // the catalogue of docs/OPS.md
  std::ifstream maps("/proc/self/maps");
  ASSERT_TRUE(maps.good());
  std::string line, mapped;
  while (std::getline(maps, line))
    if (line.find("libtorch") != std::string::npos) mapped += line + "\n";
  EXPECT_EQ(mapped, "");
}

}  // namespace
}  // namespace opcert
