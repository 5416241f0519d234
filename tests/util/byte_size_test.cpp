// Byte sizes as flags give them and tables print them (util/byte_size.h).
#include <gtest/gtest.h>

#include "model/input_error.h"
#include "util/byte_size.h"

namespace opcert {
namespace {

TEST(ByteSize, ParsesPlainAndSuffixedSizes) {
  EXPECT_EQ(parse_byte_size("4096", "--min-bytes"), 4096u);
  EXPECT_EQ(parse_byte_size("1K", "--min-bytes"), 1024u);
  EXPECT_EQ(parse_byte_size("1k", "--min-bytes"), 1024u);
  EXPECT_EQ(parse_byte_size("256M", "--max-bytes"), 256u << 20);
  EXPECT_EQ(parse_byte_size("256MiB", "--max-bytes"), 256u << 20);
  EXPECT_EQ(parse_byte_size("2G", "--max-bytes"), uint64_t{2} << 30);
  EXPECT_EQ(parse_byte_size("64B", "--max-bytes"), 64u);
}

TEST(ByteSize, RejectsWhatIsNotASizeNamingTheFlag) {
  for (const char* bad : {"", "M", "1.5M", "-1", "12X", "1 K"}) {
    try {
      parse_byte_size(bad, "--max-bytes");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--max-bytes"), std::string::npos) << e.what();
    }
  }
}

TEST(ByteSize, FormatsShortly) {
  EXPECT_EQ(format_byte_size(512), "512");
  EXPECT_EQ(format_byte_size(1024), "1K");
  EXPECT_EQ(format_byte_size(256.0 * 1024 * 1024), "256M");
  EXPECT_EQ(format_byte_size(1536), "1.5K");
}}  // namespace
}  // namespace opcert
