// Every loader of untrusted input against mutated copies of the shipped files (truncations, flipped
// bytes, cut and doubled spans, JSON tokens spliced in): each copy is loaded or refused with one
// clean error, never a crash or a stray exception (docs/RELIABILITY.md, "Malformed input"). The
// mutations are seeded, so a finding reproduces; the input that found it is written next to the
// test's binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "loader_targets.h"

namespace opcert::fuzz {
namespace {

constexpr int kMutationsPerSeed = 400;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::filesystem::path> seeds_of(const LoaderTarget& t) {
  std::vector<std::filesystem::path> seeds;
  const std::filesystem::path dir = std::filesystem::path(OPCERT_SOURCE_DIR) / t.seed_glob_dir;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().string().ends_with(t.seed_suffix)) seeds.push_back(e.path());
  std::sort(seeds.begin(), seeds.end());
  return seeds;
}

// One seeded change of `text`.
std::string mutated(std::string text, std::mt19937_64& rng) {
  static const char* const kTokens[] = {"{", "}", "[", "]", "\"", ",", ":", "null", "-1", "0", "1e999", "-1e308",
                                        "18446744073709551616", "true", "\"\\u0000\"", "\xff", "[[[[[[[[", "\"x\""};
  const auto at = [&](std::size_t n) { return n == 0 ? std::size_t{0} : static_cast<std::size_t>(rng() % (n + 1)); };
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    const std::size_t pos = at(text.size());
    switch (rng() % 5) {
      case 0: text.resize(pos); break;                                                        // truncated
      case 1: if (pos < text.size()) text[pos] = static_cast<char>(text[pos] ^ (1 << (rng() % 8))); break;  // a flipped bit
      case 2: text.erase(pos, at(std::min<std::size_t>(64, text.size() - pos))); break;        // a span cut
      case 3: text.insert(pos, text.substr(pos, at(std::min<std::size_t>(64, text.size() - pos)))); break;  // doubled
      default: text.insert(pos, kTokens[rng() % std::size(kTokens)]); break;                   // a token spliced in
    }
  }
  return text;
}

class LoaderMutation : public ::testing::TestWithParam<LoaderTarget> {};

TEST_P(LoaderMutation, EveryMutatedFileIsLoadedOrRefusedCleanly) {
  const LoaderTarget& t = GetParam();
  const auto seeds = seeds_of(t);
  ASSERT_FALSE(seeds.empty()) << "no seed files for " << t.name << " under " << t.seed_glob_dir;
  std::mt19937_64 rng(20261126);
  int runs = 0;
  for (const auto& seed : seeds) {
    const std::string original = read_file(seed);
    t.run(original);  // the shipped file itself
    for (int i = 0; i < kMutationsPerSeed; ++i) {
      const std::string input = mutated(original, rng);
      try {
        t.run(input);
        ++runs;
      } catch (const std::exception& e) {
        const std::string finding = std::string("fuzz-finding-") + t.name + ".bin";
        std::ofstream(finding, std::ios::binary) << input;
        FAIL() << t.name << " threw " << typeid(e).name() << " (" << e.what() << ") on a mutation of " << seed
               << "; the input is in " << std::filesystem::absolute(finding);
      }
    }
  }
  EXPECT_GT(runs, 0);
}

INSTANTIATE_TEST_SUITE_P(EveryLoader, LoaderMutation, ::testing::ValuesIn(loader_targets()),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace opcert::fuzz
