// An op's mutants file declares its own defects (defect.h, own_defect): a number given to two of
// one op's variants would make them one defect under two names, so the op's variants are refused.
#include <gtest/gtest.h>

#include <stdexcept>

#include "mutants/mutant_op.h"

namespace opcert::mutants {
namespace {

struct NoOperands {};

NoOperands parse(const sdk::OpCall&, sdk::CallCheck&) { return {}; }
void compute(const NoOperands&, Defect) {}

TEST(MutantVariants, OneDefectPerVariantMakesOneImplementationEach) {
  const MutantOp<NoOperands> op{"example", parse, compute, nullptr,
                                {{Defect::kNone, "correct"}, {own_defect(0), "slip"}, {own_defect(1), "other_slip"}}};
  const auto impls = mutant_variants(op);
  ASSERT_EQ(impls.size(), 3u);
  EXPECT_EQ(impls[1].key, "mutants.example.slip");
}

TEST(MutantVariants, TwoVariantsWithOneDefectAreRefused) {
  const MutantOp<NoOperands> op{"example", parse, compute, nullptr,
                                {{Defect::kNone, "correct"}, {own_defect(0), "slip"}, {own_defect(0), "same_slip"}}};
  EXPECT_THROW(mutant_variants(op), std::logic_error);
}

}  // namespace
}  // namespace opcert::mutants
