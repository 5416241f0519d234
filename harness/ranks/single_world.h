// A world of one rank: what a collective run uses without an MPI launcher (or without MPI).
#pragma once

#include <memory>
#include <string>

#include "ranks/world.h"

namespace opcert {

std::unique_ptr<World> make_single_world(std::string reason);

}  // namespace opcert
