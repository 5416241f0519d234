#include "collectives/test_fault.h"

#include <opcert/sdk/error.h>

#include <charconv>
#include <cstdlib>
#include <string>

namespace opcert::cuda {
namespace {

constexpr const char* kVariable = "OPCERT_CUDA_TEST_FAULT";

[[noreturn]] void bad_item(std::string_view item) {
  throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, std::string(kVariable) + ": '" + std::string(item) +
                                                      "' is not ACTION:RANK@K (ACTION hang or exit, K counted from 1)");
}

int whole_number(std::string_view text, std::string_view item) {
  int value = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 0) bad_item(item);
  return value;
}

TestFault parse_one(std::string_view item) {
  const auto colon = item.find(':'), at = item.find('@');
  if (colon == std::string_view::npos || at == std::string_view::npos || at < colon) bad_item(item);
  TestFault f;
  const std::string_view action = item.substr(0, colon);
  if (action == "hang") f.action = TestFault::Action::kHang;
  else if (action == "exit") f.action = TestFault::Action::kExit;
  else bad_item(item);
  f.rank = whole_number(item.substr(colon + 1, at - colon - 1), item);
  f.at = whole_number(item.substr(at + 1), item);
  if (f.at == 0) bad_item(item);
  return f;
}

}  // namespace

std::vector<TestFault> parse_test_faults(std::string_view text) {
  std::vector<TestFault> faults;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    if (!item.empty()) faults.push_back(parse_one(item));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return faults;
}

TestFaults TestFaults::from_env() {
  const char* text = std::getenv(kVariable);
  return TestFaults(parse_test_faults(text ? text : ""));
}

std::optional<TestFault::Action> TestFaults::next_collective(int rank) {
  ++calls_;
  for (const TestFault& f : faults_)
    if (f.rank == rank && f.at == calls_) return f.action;
  return std::nullopt;
}

}  // namespace opcert::cuda
