// A toy op that lives only in this test folder, to prove that adding an op touches nothing outside
// its own folder (docs/ARCHITECTURE.md, "Adding an op"): toy_scale, y[n] = alpha · x[n] in fp32 or
// bf16 with one rounding. Its spec, reference, tolerance, work model and descriptor are the files
// beside this one; the test plugin (toy_plugin.cpp) implements it.
#pragma once

#include "opkit/op_descriptor.h"

namespace opcert::ops::toy_scale {

using namespace opcert::opkit;

std::span<const ParamDef> parameters();
void build_case(const json& params, Case& c);
void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t);
WorkModel work(const Case& c);

}  // namespace opcert::ops::toy_scale
