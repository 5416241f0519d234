#include "opkit/work_model.h"

#include <fmt/format.h>

#include <stdexcept>

#include "opkit/op_registry.h"

namespace opcert {

[[noreturn]] void work_model_error(const Case& c, const std::string& message) {
  throw std::invalid_argument(fmt::format("work model of {} case '{}': {}", c.op, c.id, message));
}

const TensorSpec& work_operand(const Case& c, const std::string& name, std::size_t rank) {
  const TensorSpec* t = c.find_input(name);
  if (!t) t = c.find_output(name);
  if (!t) work_model_error(c, fmt::format("no operand '{}'", name));
  if (t->shape.size() != rank)
    work_model_error(c, fmt::format("operand '{}' has shape {}, not of rank {}", name, shape_text(t->shape), rank));
  return *t;
}

double operand_bytes(const Case& c) {
  double bytes = 0;
  for (const auto& t : c.inputs) bytes += static_cast<double>(t.bytes());
  for (const auto& t : c.outputs) bytes += static_cast<double>(t.bytes());
  return bytes;
}

WorkModel memory_bound_work(const Case& c) { return {0, operand_bytes(c), "", false}; }

WorkModel work_model(const Case& c) {
  const OpDescriptor& op = op_of(c);
  if (op.work == nullptr) throw std::invalid_argument(fmt::format("no work model for op '{}'", c.op));
  return op.work(c);
}

}  // namespace opcert
