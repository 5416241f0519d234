// remove_tree (util/remove_tree.h): a folder with files, a nested folder and a link goes whole; the
// link's target, outside it, stays; a path already absent is no failure.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "util/remove_tree.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;

TEST(RemoveTree, AFolderGoesWithEverythingInItButNotWhatItsLinksPointAt) {
  std::string pattern = (fs::temp_directory_path() / "opcert-remove-tree-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  const fs::path root = pattern;
  const fs::path tree = root / "tree";
  const fs::path outside = root / "outside";
  fs::create_directories(tree / "a" / "b");
  fs::create_directory(outside);
  std::ofstream(tree / "file.inputs") << "inputs";
  std::ofstream(tree / "a" / "b" / "deep.reference") << "reference";
  std::ofstream(outside / "kept") << "kept";
  fs::create_directory_symlink(outside, tree / "a" / "link");

  EXPECT_TRUE(remove_tree(tree));
  EXPECT_FALSE(fs::exists(fs::symlink_status(tree)));
  EXPECT_TRUE(fs::exists(outside / "kept")) << "a link is removed, never followed";
  EXPECT_TRUE(remove_tree(tree)) << "already absent: nothing left there";

  std::ofstream(root / "single") << "x";
  EXPECT_TRUE(remove_tree(root / "single"));
  EXPECT_FALSE(fs::exists(root / "single"));
  EXPECT_TRUE(remove_tree(root));
  EXPECT_FALSE(fs::exists(root));
}

}  // namespace
}  // namespace opcert
