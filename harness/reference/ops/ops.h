// One golden reference per op of docs/OPS.md (collectives excepted), each in ops/<op>.cpp.
// Each returns the outputs the case lists, in any order; compute_reference orders them.
#pragma once

#include <span>
#include <vector>

#include "reference/reference.h"

namespace opcert::reference_detail {

using OpReference = std::vector<ReferenceOutput> (*)(const Case&, std::span<const HostTensor>, const SamplePlan&);

std::vector<ReferenceOutput> gemm_reference(const Case&, std::span<const HostTensor>, const SamplePlan&);
std::vector<ReferenceOutput> gemm_fp8_reference(const Case&, std::span<const HostTensor>, const SamplePlan&);
std::vector<ReferenceOutput> gemm_int8_reference(const Case&, std::span<const HostTensor>, const SamplePlan&);
std::vector<ReferenceOutput> quantize_reference(const Case&, std::span<const HostTensor>, const SamplePlan&);
std::vector<ReferenceOutput> attention_reference(const Case&, std::span<const HostTensor>, const SamplePlan&);
std::vector<ReferenceOutput> rms_norm_reference(const Case&, std::span<const HostTensor>, const SamplePlan&);
std::vector<ReferenceOutput> layer_norm_reference(const Case&, std::span<const HostTensor>, const SamplePlan&);
std::vector<ReferenceOutput> rope_reference(const Case&, std::span<const HostTensor>, const SamplePlan&);
std::vector<ReferenceOutput> softmax_reference(const Case&, std::span<const HostTensor>, const SamplePlan&);

}  // namespace opcert::reference_detail
