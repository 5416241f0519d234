#include "loader/name_selection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace opcert {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(NameSelection, ExactNamesAndLists) {
  const NameSelection sel("cpu,torch");
  EXPECT_TRUE(sel.matches("cpu"));
  EXPECT_TRUE(sel.matches("torch"));
  EXPECT_FALSE(sel.matches("cuda"));
  EXPECT_FALSE(sel.matches("cpux")) << "a name is matched whole, not as a prefix";
}

TEST(NameSelection, Globs) {
  const NameSelection sel("cu*,t?rch,npu[0-9]");
  EXPECT_TRUE(sel.matches("cuda"));
  EXPECT_TRUE(sel.matches("cu"));
  EXPECT_TRUE(sel.matches("torch"));
  EXPECT_TRUE(sel.matches("npu7"));
  EXPECT_FALSE(sel.matches("npu10"));
  EXPECT_FALSE(sel.matches("cpu"));
}

TEST(NameSelection, ExclusionsWinOverInclusions) {
  const NameSelection sel("*,!cuda-tf32,!t*");
  EXPECT_TRUE(sel.matches("cuda"));
  EXPECT_TRUE(sel.matches("cpu"));
  EXPECT_FALSE(sel.matches("cuda-tf32"));
  EXPECT_FALSE(sel.matches("torch"));
}

TEST(NameSelection, EmptyOrOnlyExclusionsStartsFromEverything) {
  EXPECT_TRUE(NameSelection("").matches("anything"));
  const NameSelection sel("!cpu");
  EXPECT_TRUE(sel.matches("cuda"));
  EXPECT_FALSE(sel.matches("cpu"));
}

TEST(NameSelection, BlanksAndEmptyItemsAreIgnored) {
  const NameSelection sel(" cpu , ,\t! torch ,,");
  EXPECT_TRUE(sel.matches("cpu"));
  EXPECT_FALSE(sel.matches("cuda")) << "the selection is not empty: it names cpu";
  EXPECT_TRUE(NameSelection(" , ").matches("cuda"));
}

TEST(NameSelection, UnmatchedListsIncludePatternsThatMatchNothing) {
  const NameSelection sel("cpu,cu*,npu,!torch");
  EXPECT_THAT(sel.unmatched({"cpu", "torch"}), ElementsAre("cu*", "npu"));
  EXPECT_THAT(sel.unmatched({"cpu", "cuda", "npu"}), IsEmpty());
  EXPECT_THAT(NameSelection("!cpu").unmatched({}), IsEmpty()) << "exclusions are never unmatched";
}

}  // namespace
}  // namespace opcert
