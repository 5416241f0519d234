#include "compare/compare_options.h"

#include <fmt/format.h>

#include <sstream>

#include "model/input_error.h"

namespace opcert {

std::set<std::string> parse_gates(const std::string& list) {
  std::set<std::string> gates;
  std::stringstream in(list);
  for (std::string gate; std::getline(in, gate, ',');) {
    if (gate.empty()) continue;
    if (gate != "status" && gate != "perf" && gate != "alignment" && gate != "peer_ratio")
      throw InputError(fmt::format("--fail-on: unknown gate '{}' (known: {})", gate, kGateNames));
    gates.insert(gate);
  }
  return gates;
}

}  // namespace opcert
