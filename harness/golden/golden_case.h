// One case of a golden set as a safetensors file: the inputs the backend receives, in their
// storage dtype, and the golden reference of every output (values, magnitudes, conditions and,
// for a sampled output, the indices checked): all a check needs without LibTorch.
//
// Tensors: "input.<operand>" (the operand's dtype and shape); "reference.<output>.values",
// ".magnitude", ".condition" (F64; the output's shape when whole, 1-D when sampled; magnitude and
// condition only when the reference gives them) and ".indices" (I64, sampled outputs only).
// Metadata: format, case id, op, declared dtype, seed, suite and the sha256 of each input.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "golden/safetensors.h"
#include "model/case.h"
#include "model/host_tensor.h"
#include "opkit/reference_output.h"

namespace opcert {

inline constexpr const char* kGoldenCaseFormat = "opcert-golden-case/1";

/// The file of case `c` from its generated inputs and its reference.
SafetensorsWriter encode_golden_case(const Case& c, const std::string& suite, std::span<const HostTensor> inputs,
                                     std::span<const ReferenceOutput> reference);

/// The golden reference of case `c` from its file, after checking that the file is this case's
/// (format, id, op, seed), that `inputs` (what this opcert generated for it) are byte for byte the
/// exported inputs, and that the file checked the outputs `sample` samples (the same indices).
/// Throws std::runtime_error saying which of these differs.
std::vector<ReferenceOutput> decode_golden_case(const SafetensorsFile& file, const Case& c,
                                                std::span<const HostTensor> inputs, const SamplePlan& sample);

}  // namespace opcert
