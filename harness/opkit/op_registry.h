// The one table of ops. Each op folder registers its descriptor at static initialisation:
//
//   OPCERT_REGISTER_OP(kDescriptor);   // in harness/ops/<op>/<op>_op.cpp
//
// Op folders are built as object libraries and linked whole into executables (through
// opcert::ops in harness/ops/CMakeLists.txt), so a registration is never dropped by the linker.
#pragma once

#include <string_view>
#include <vector>

#include "opkit/op_descriptor.h"

namespace opcert {

/// Adds `op` to the table; `op` must outlive the program (a static). A second op of the same name
/// is a build mistake: the program stops with a message naming it.
void register_op(const OpDescriptor& op);

/// Every registered op, in documentation order (OpDescriptor::order, then name).
std::vector<const OpDescriptor*> registered_ops();

/// The op of that name, or nullptr.
const OpDescriptor* find_op(std::string_view name);

/// Whether `name` is a registered collective (run across ranks, not in workers).
bool is_collective_op(std::string_view name);

/// The op of case `c`; throws std::invalid_argument when no op of that name is registered.
const OpDescriptor& op_of(const Case& c);

/// "gemm, gemm_fp8, ...": the registered names, for messages.
std::string registered_op_names();

namespace detail {
struct OpRegistration {
  explicit OpRegistration(const OpDescriptor& op) { register_op(op); }
};
}  // namespace detail

}  // namespace opcert

#define OPCERT_REGISTER_OP_CONCAT2(a, b) a##b
#define OPCERT_REGISTER_OP_CONCAT(a, b) OPCERT_REGISTER_OP_CONCAT2(a, b)
/// Registers a static OpDescriptor when the program starts.
#define OPCERT_REGISTER_OP(descriptor)                                                                       \
  namespace {                                                                                                \
  const ::opcert::detail::OpRegistration OPCERT_REGISTER_OP_CONCAT(opcert_op_registration_, __LINE__){descriptor}; \
  }
