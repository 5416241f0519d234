// rope (docs/OPS.md#rope): rotary position embedding of q (and k), split-half or interleaved
// pairs, partial rotary dim, optional explicit positions.
// What the harness knows of it, one file each: the parameters and case builder (rope_spec.cpp),
// the golden reference (rope_reference.cpp), the tolerance (rope_tolerance.cpp), the work model
// (rope_work.cpp), and the descriptor that registers them (rope_op.cpp). The operands' names
// are the SDK's (opcert/sdk/ops/rope.h), the one contract backends parse calls with.
#pragma once

#include <opcert/sdk/ops/rope.h>

#include "opkit/op_descriptor.h"

namespace opcert::ops::rope {

using namespace opcert::opkit;
namespace names = sdk::rope_names;

std::span<const ParamDef> parameters();
void build_case(const json& params, Case& c);
void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t);
WorkModel work(const Case& c);

}  // namespace opcert::ops::rope
