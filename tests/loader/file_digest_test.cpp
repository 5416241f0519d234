#include "loader/file_digest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "loader/temp_dir.h"

namespace opcert {
namespace {

// FIPS 180-2 test vectors.
TEST(FileDigest, KnownVectors) {
  testing::TempDir dir;
  EXPECT_EQ(sha256_file_hex(dir.write("abc", "abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_file_hex(dir.write("empty", "")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(FileDigest, FileLargerThanOneReadBuffer) {
  testing::TempDir dir;
  EXPECT_EQ(sha256_file_hex(dir.write("million_a", std::string(1'000'000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(FileDigest, BinaryContentIsHashedByteForByte) {
  testing::TempDir dir;
  const std::string with_nul("a\0b\r\n", 5);
  EXPECT_NE(sha256_file_hex(dir.write("bin", with_nul)), sha256_file_hex(dir.write("text", "ab\r\n")));
}

TEST(FileDigest, MissingFileThrowsWithItsPath) {
  testing::TempDir dir;
  const std::string path = dir / "absent";
  try {
    sha256_file_hex(path);
    FAIL() << "no exception for a missing file";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(path));
  }
}

}  // namespace
}  // namespace opcert
