// The "mutants" backend (docs/TOLERANCES.md, "Detection power"): for each op a correct naive
// implementation ("mutants.<op>.correct", the twin) and deliberately broken ones
// ("mutants.<op>.<defect>"), each a slip an author who misread docs/OPS.md might make.
// `opcert selftest` loads it as a plugin and checks that the shipped suites catch every one.
#include <opcert/sdk/backend.h>
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/collective_implementations.h>
#include <opcert/sdk/ops.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "collectives/collective_impls.h"
#include "naive_collectives.h"
#include "naive_ops.h"

namespace opcert::mutants {
namespace {

// One implementation per variant of an op: the correct control and each defect. All read the call
// with the op's SDK parser, so a call the contract refuses is declined by every one of them, and
// the naive code's own limits decline the rest it does not do; the defects stay in the numbers.
template <class Operands>
struct MutantOp {
  const char* op;
  Operands (*parse)(const sdk::OpCall&, sdk::CallCheck&);
  void (*compute)(const Operands&, Defect);
  sdk::Support (*limits)(const Operands&) = nullptr;
  std::initializer_list<std::pair<Defect, const char*>> variants;
};

// Collectives take the CPU backend's communicator (MPI across the ranks of the job): the mutants
// differ from their twins only in what they compute from every rank's x.
sdk::CollectiveTarget collective_target() { return {OPCERT_DEVICE_CPU, cpu::mpi_job_ranks, nullptr}; }

class MutantBackend : public sdk::Backend, public cpu::CpuCollectives {
 public:
  static constexpr bool kHasCollectives = true;

  MutantBackend() : CpuCollectives(static_cast<const sdk::Backend&>(*this)) {
    add_op<sdk::GemmOperands>({"gemm", sdk::parse_gemm, gemm, nullptr,
                               {{Defect::kNone, "correct"},
                                {Defect::kBf16Accumulation, "bf16_accumulation"},
                                {Defect::kWritePastEnd, "write_past_end"},
                                {Defect::kTf32Inputs, "tf32_inputs"},
                                {Defect::kBf16Inputs, "bf16_inputs"},
                                {Defect::kBiasDropped, "bias_dropped"},
                                {Defect::kLayoutIgnored, "layout_ignored"},
                                {Defect::kTruncatedOutput, "truncated_output"},
                                {Defect::kHalfAwayOutput, "half_away_output"},
                                {Defect::kOddOutput, "odd_output"},
                                {Defect::kNanSpread, "nan_spread"}}});
    add_op<sdk::GemmFp8Operands>({"gemm_fp8", sdk::parse_gemm_fp8, gemm_fp8, nullptr,
                                  {{Defect::kNone, "correct"},
                                   {Defect::kScaleDropped, "scale_dropped"},
                                   {Defect::kBlockScaleTransposed, "block_scale_transposed"},
                                   {Defect::kPartialBlockScale, "partial_block_scale"},
                                   {Defect::kBiasDropped, "bias_dropped"},
                                   {Defect::kTruncatedOutput, "truncated_output"}}});
    add_op<sdk::GemmInt8Operands>({"gemm_int8", sdk::parse_gemm_int8, gemm_int8, nullptr,
                                   {{Defect::kNone, "correct"},
                                    {Defect::kScaleDropped, "scale_dropped"},
                                    {Defect::kBiasDropped, "bias_dropped"},
                                    {Defect::kHalfAwayOutput, "half_away_output"},
                                    {Defect::kInt16Accumulation, "int16_accumulation"},
                                    {Defect::kFp32Accumulation, "fp32_accumulation"},
                                    {Defect::kRoundedBeforeScale, "rounded_before_scale"}}});
    add_op<sdk::QuantizeOperands>({"quantize", sdk::parse_quantize, quantize, nullptr,
                                   {{Defect::kNone, "correct"},
                                    {Defect::kWrongQuantMax, "wrong_qmax"},
                                    {Defect::kWrongGranularity, "wrong_granularity"},
                                    {Defect::kHalfAwayOutput, "half_away_codes"},
                                    {Defect::kTruncatedOutput, "truncated_codes"}}});
    add_op<sdk::AttentionOperands>({"attention", sdk::parse_attention, attention, attention_limits,
                                    {{Defect::kNone, "correct"},
                                     {Defect::kCausalOffByOne, "causal_off_by_one"},
                                     {Defect::kWrongGqaMapping, "wrong_gqa_mapping"},
                                     {Defect::kScaleIgnored, "scale_ignored"},
                                     {Defect::kCausalTopLeft, "causal_top_left"},
                                     {Defect::kWindowOffByOne, "window_off_by_one"},
                                     {Defect::kDescaleIgnored, "descale_ignored"},
                                     {Defect::kVDescaleFromK, "v_descale_from_k"},
                                     {Defect::kTruncatedOutput, "truncated_output"}}});
    add_op<sdk::NormOperands>({"rms_norm", sdk::parse_rms_norm, norm, norm_limits,
                               {{Defect::kNone, "correct"},
                                {Defect::kWrongEps, "wrong_eps"},
                                {Defect::kWeightDropped, "weight_dropped"},
                                {Defect::kMeanOffByOne, "mean_off_by_one"},
                                {Defect::kTruncatedOutput, "truncated_output"}}});
    add_op<sdk::NormOperands>({"layer_norm", sdk::parse_layer_norm, norm, norm_limits,
                               {{Defect::kNone, "correct"},
                                {Defect::kWrongEps, "wrong_eps"},
                                {Defect::kWeightDropped, "weight_dropped"},
                                {Defect::kUnbiasedVariance, "unbiased_variance"},
                                {Defect::kTruncatedOutput, "truncated_output"}}});
    add_op<sdk::RopeOperands>({"rope", sdk::parse_rope, rope, nullptr,
                               {{Defect::kNone, "correct"},
                                {Defect::kMissingRotaryPair, "missing_rotary_pair"},
                                {Defect::kWrongStyle, "wrong_style"},
                                {Defect::kPositionsIgnored, "positions_ignored"},
                                {Defect::kHalfAwayOutput, "half_away_output"},
                                {Defect::kTruncatedOutput, "truncated_output"}}});
    add_op<sdk::SoftmaxOperands>({"softmax", sdk::parse_softmax, softmax, nullptr,
                                  {{Defect::kNone, "correct"},
                                   {Defect::kWritePastEnd, "write_past_end"},
                                   {Defect::kLastDropped, "last_dropped"},
                                   {Defect::kExpRounded, "exp_rounded"},
                                   {Defect::kNonFiniteRowsZeroed, "non_finite_rows_zeroed"},
                                   {Defect::kNanSpread, "nan_spread"},
                                   {Defect::kTruncatedOutput, "truncated_output"}}});
    for (const CollectiveVariant& v : collective_variants()) {
      const std::string description = v.defect == CollectiveDefect::kNone ? "every rank's x gathered, reduced in fp64, correct"
                                                                          : std::string("defect: ") + v.name;
      for (sdk::Implementation impl : sdk::collective_implementations("mutants", v.name, description, collective_target()))
        if (impl.op == sdk::collective_name(v.op)) add(std::move(impl));
    }
  }
  sdk::BackendInfo info() const override { return {"mutants", "1.0", "opcert", "deliberately broken ops (opcert selftest)"}; }

  void run_collective(const sdk::OpCall& call, opcert_comm* comm) override {
    if (comm == nullptr) throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "null communicator");
    auto& c = *reinterpret_cast<cpu::CpuComm*>(comm);
    const std::string key(call.impl_key());
    const sdk::Collective which = sdk::collective_of(implementation(key).op);
    const sdk::CollectiveArgs args = sdk::checked_collective(call, which, c.nranks(), collective_target());
    for (const CollectiveVariant& v : collective_variants())
      if (v.op == which && key == std::string("mutants.") + sdk::collective_name(v.op) + "." + v.name)
        return run_naive_collective(c, args, v.defect);
    throw sdk::Error(OPCERT_ERROR_NOT_FOUND, "no collective variant '" + key + "'");
  }

 private:
  template <class Operands>
  void add_op(const MutantOp<Operands>& m) {
    for (const auto& [defect, name] : m.variants) {
      const std::string description = defect == Defect::kNone ? "naive fp64, correct" : std::string("defect: ") + name;
      auto compute = [fn = m.compute, defect = defect](const Operands& operands) { fn(operands, defect); };
      add(sdk::checked_implementation({std::string("mutants.") + m.op + "." + name, m.op, description}, m.parse, compute,
                                      m.limits));
    }
  }
};

}  // namespace
}  // namespace opcert::mutants

OPCERT_SDK_EXPORT_PLUGIN(opcert::mutants::MutantBackend)
