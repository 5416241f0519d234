#include "opkit/op_registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace opcert {
namespace {

// A function-local static: registrations run during static initialisation, in any order.
std::vector<const OpDescriptor*>& table() {
  static std::vector<const OpDescriptor*> ops;
  return ops;
}

}  // namespace

void register_op(const OpDescriptor& op) {
  auto& ops = table();
  if (find_op(op.name) != nullptr) {
    std::fprintf(stderr, "opcert: op '%.*s' is registered twice; each op folder must register once\n",
                 static_cast<int>(op.name.size()), op.name.data());
    std::abort();
  }
  ops.push_back(&op);
  std::stable_sort(ops.begin(), ops.end(), [](const OpDescriptor* a, const OpDescriptor* b) {
    return a->order != b->order ? a->order < b->order : a->name < b->name;
  });
}

std::vector<const OpDescriptor*> registered_ops() { return table(); }

const OpDescriptor* find_op(std::string_view name) {
  for (const OpDescriptor* op : table())
    if (op->name == name) return op;
  return nullptr;
}

bool is_collective_op(std::string_view name) {
  const OpDescriptor* op = find_op(name);
  return op != nullptr && op->family == OpFamily::kCollective;
}

const OpDescriptor& op_of(const Case& c) {
  if (const OpDescriptor* op = find_op(c.op)) return *op;
  throw std::invalid_argument(fmt::format("case '{}': unknown op '{}' (registered: {})", c.id, c.op, registered_op_names()));
}

std::string registered_op_names() {
  std::string names;
  for (const OpDescriptor* op : table()) names += (names.empty() ? "" : ", ") + std::string(op->name);
  return names.empty() ? "none" : names;
}

}  // namespace opcert
