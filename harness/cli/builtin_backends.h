// Registration of the backends linked into the opcert binary (list generated at configure time).
#pragma once

#include "loader/registry.h"

namespace opcert {

/// Adds every in-tree backend to the registry through its C ABI entry point.
void register_builtin_backends(Registry& registry);

}  // namespace opcert
