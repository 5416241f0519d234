// A libFuzzer entry for one loader of tests/fuzz/loader_targets.cpp (OPCERT_FUZZ_TARGET names it),
// built by the "asan" preset with clang (docs/RELIABILITY.md, "Fuzzing"). A stray exception
// escapes as an abort, which libFuzzer reports with the input.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "loader_targets.h"

namespace {

const opcert::fuzz::LoaderTarget& target() {
  for (const auto& t : opcert::fuzz::loader_targets())
    if (std::strcmp(t.name, OPCERT_FUZZ_TARGET) == 0) return t;
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  target().run(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
