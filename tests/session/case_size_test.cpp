// docs/SUITES.md, "Sizes": every op's case builder, fed overflowing and near-limit shapes through
// the suite loader. A case whose sizes do not fit is refused (InputError, one line naming the case
// and the parameter); one that fits has a footprint equal to an exact 128-bit computation from its
// shapes. Before, sizes were multiplied in 64 bits and wrapped: [2^40, 2^40] counted 0 elements.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <random>
#include <set>
#include <string>

#include "check/suite.h"
#include "loader/temp_dir.h"
#include "model/checked_size.h"
#include "model/dtype.h"
#include "model/input_error.h"
#include "opkit/op_registry.h"
#include "session/execution/device_buffer.h"
#include "session/execution/memory_admission.h"

namespace opcert {
namespace {

using nlohmann::json;
__extension__ typedef unsigned __int128 u128;  // GCC and Clang: exact products of two 64-bit sizes

constexpr u128 kLimit = u128{1} << 60;

// The case's footprint as model/checked_size.h promises it, in 128 bits, from the shapes alone.
Footprint exact_footprint(const Case& c) {
  const auto elements = [](const TensorSpec& t) {
    u128 n = 1;
    for (int64_t d : t.shape) n *= static_cast<u128>(d);
    return n;
  };
  u128 operands = 0, outputs = 0, checked = 0;
  for (const auto& t : c.inputs) {
    operands += elements(t) * dtype_bytes(t.dtype);
    checked += elements(t);
  }
  for (const auto& t : c.outputs) {
    outputs += elements(t) * dtype_bytes(t.dtype) + 2 * DeviceBuffer::kGuardBytes;
    const u128 n = elements(t);
    checked += c.sample_elements > 0 && n > static_cast<u128>(c.sample_elements) ? static_cast<u128>(c.sample_elements) : n;
  }
  const u128 reference = checked * sizeof(double);
  EXPECT_LT(2 * (operands + outputs) + reference, u128{1} << 64) << c.id << ": a case that loads fits 64 bits";
  return {static_cast<uint64_t>(operands), static_cast<uint64_t>(outputs), static_cast<uint64_t>(reference)};
}

// Loads a one-case suite of `op` with `params`: the loaded case, or the refusal's line.
struct Loaded {
  std::optional<Case> c;
  std::string refusal;
};

Loaded load(const std::string& op, const json& params) {
  testing::TempDir dir;
  const json suite = {{"suite_format", "1.0"}, {"cases", json::array({{{"op", op}, {"params", params}}})}};
  const std::string path = dir.write("s.json", suite.dump());
  try {
    Suite s = load_suite(path, 1);
    return {std::move(s.cases.at(0)), ""};
  } catch (const InputError& e) {
    return {std::nullopt, e.what()};
  }
}

void expect_exact_footprint(const Case& c) {
  const Footprint got = case_footprint(c), want = exact_footprint(c);
  EXPECT_EQ(got.operands, want.operands) << c.id;
  EXPECT_EQ(got.outputs, want.outputs) << c.id;
  EXPECT_EQ(got.reference, want.reference) << c.id;
  EXPECT_EQ(got.host(true), static_cast<uint64_t>(2 * (u128{want.operands} + want.outputs) + want.reference)) << c.id;
}

struct Row {
  const char* op;
  const char* params;
  const char* refusal;  // a part of the refusal's line; nullptr: the case loads
};

// 2^20 = 1048576, 2^27 = 134217728, 2^28 = 268435456, 2^29 = 536870912, 2^31 = 2147483648,
// 2^32 = 4294967296, 2^40 = 1099511627776, 2^62 = 4611686018427387904.
const Row kRows[] = {
    {"gemm", R"({"dtype": "fp32", "m": 4294967296, "n": 4294967296, "k": 4})",
     "parameters 'm', 'n': operand 'c' [4294967296, 4294967296] holds 2^64 elements of fp32 (2^66 bytes)"},
    {"gemm", R"({"dtype": "fp32", "m": 1099511627776, "n": 1099511627776, "k": 1099511627776})", "operand 'a' [1099511627776, 1099511627776]"},
    {"gemm", R"({"dtype": "fp32", "m": 4611686018427387904, "n": 1, "k": 1})", "parameter 'm': operand 'a' [4611686018427387904, 1] holds 2^62 elements of fp32 (2^64 bytes)"},
    {"gemm", R"({"dtype": "fp32", "m": 0, "n": 1099511627776, "k": 1099511627776})", "operand 'b'"},
    {"gemm", R"({"dtype": "fp32", "m": 536870912, "n": 536870912, "k": 1})", "its operands hold 2^60.0 bytes together (the largest, 'c'"},
    {"gemm", R"({"dtype": "fp32", "m": 268435456, "n": 268435456, "k": 1})", nullptr},
    {"gemm", R"({"dtype": "fp32", "m": 0, "n": 0, "k": 1099511627776})", nullptr},
    {"gemm_fp8", R"({"m": 4294967296, "n": 4294967296, "k": 4})", "parameters 'm', 'n': operand 'c'"},
    {"gemm_fp8", R"({"scaling": "block", "m": 1, "n": 1, "k": 9223372036854775807})", "parameter 'k': operand 'a'"},
    {"gemm_fp8", R"({"scaling": "channel", "fill": "exact", "m": 134217728, "n": 1, "k": 1})",
     "parameter 'm': operand 'a_scale' [134217728] would list 134217728 values when the suite loads"},
    {"gemm_fp8", R"({"scaling": "block", "m": 1048576, "n": 1048576, "k": 128, "out_dtype": "fp32"})", nullptr},
    {"gemm_int8", R"({"out_dtype": "int32", "m": 4294967296, "n": 4294967296, "k": 4})", "parameters 'm', 'n': operand 'c'"},
    {"gemm_int8", R"({"out_dtype": "bf16", "fill": "exact", "m": 134217728, "n": 1, "k": 1})", "operand 'a_scale' [134217728] would list"},
    {"gemm_int8", R"({"out_dtype": "int32", "m": 16777216, "n": 16777216, "k": 16})", nullptr},
    {"quantize", R"({"in_dtype": "bf16", "out_dtype": "int8", "m": 2147483648, "k": 2147483648})", "parameters 'k', 'm': operand 'x'"},
    {"quantize", R"({"in_dtype": "bf16", "out_dtype": "int8", "m": 1048576, "k": 1048576})", nullptr},
    {"attention", R"({"dtype": "fp16", "b": 1048576, "sq": 1048576, "hq": 1048576, "d": 1048576})", "operand 'q'"},
    {"attention", R"({"dtype": "fp16", "layout": "varlen", "seqlens_q": [2147483647, 1], "hq": 1, "d": 1})",
     "parameter 'seqlens_q' sums to more than 2^31 - 1 tokens"},
    {"attention", R"({"dtype": "fp8_e4m3fn", "descale": true, "zero_descale": true, "b": 134217728, "sq": 0, "hq": 1, "d": 1})",
     "parameter 'b': operand 'k_descale' [134217728, 1] would list"},
    {"attention", R"({"dtype": "fp16", "b": 1, "sq": 1048576, "hq": 16, "d": 128})", nullptr},
    {"attention", R"({"dtype": "fp16", "layout": "varlen", "seqlens_q": [2147483647], "seqlens_k": [0], "hq": 1, "d": 1})", nullptr},
    {"rms_norm", R"({"dtype": "fp32", "t": 1099511627776, "h": 1099511627776})", "parameters 'h', 't': operand 'x'"},
    {"rms_norm", R"({"dtype": "fp32", "t": 1048576, "h": 1048576, "residual": true})", nullptr},
    {"layer_norm", R"({"dtype": "fp32", "t": 1099511627776, "h": 1099511627776})", "parameters 'h', 't': operand 'x'"},
    {"layer_norm", R"({"dtype": "bf16", "t": 1048576, "h": 1048576, "bias": true})", nullptr},
    {"rope", R"({"dtype": "fp32", "layout": "thd", "t": 1099511627776, "hq": 1099511627776, "d": 2})", "parameters 'd', 'hq', 't': operand 'q' [1099511627776, 1099511627776, 2]"},
    {"rope", R"({"dtype": "fp32", "b": 16384, "s": 16384, "hq": 1, "d": 2, "positions": true})",
     "parameters 'b', 's': operand 'positions' [16384, 16384] would list"},
    {"rope", R"({"dtype": "fp32", "s": 4, "hq": 1, "d": 2, "positions": true, "max_position": 4294967296})",
     "parameter 'max_position' must be at most 2^31"},
    {"rope", R"({"dtype": "bf16", "layout": "thd", "t": 1048576, "hq": 8, "d": 128})", nullptr},
    {"softmax", R"({"dtype": "fp32", "shape": [1099511627776, 1099511627776]})", "parameter 'shape': operand 'x' [1099511627776, 1099511627776] holds 2^80 elements"},
    {"softmax", R"({"dtype": "fp32", "shape": [0, 4611686018427387904]})", "holds no element, but its strides span 2^64 bytes"},
    {"softmax", R"({"dtype": "fp32", "shape": [268435456, 268435456]})", nullptr},
    {"softmax", R"({"dtype": "fp32", "shape": [0, 1099511627776]})", nullptr},
};

// The collectives count in int (MPI, NCCL): their own range check refuses what could overflow.
constexpr const char* kCollectiveOverflow = R"({"dtype": "fp32", "count": 2147483648})";
constexpr const char* kCollectiveNearLimit = R"({"dtype": "fp32", "count": 2147483647})";

TEST(CaseSize, EveryOpRefusesOverflowingShapesAndCountsNearLimitOnesExactly) {
  std::set<std::string> refused, loaded;
  const auto check = [&](const std::string& op, const json& params, const char* refusal) {
    const Loaded l = load(op, params);
    if (refusal == nullptr) {
      ASSERT_TRUE(l.c) << op << " " << params.dump() << ": " << l.refusal;
      loaded.insert(op);
      expect_exact_footprint(*l.c);
      return;
    }
    refused.insert(op);
    ASSERT_FALSE(l.c) << op << " " << params.dump() << " must be refused";
    EXPECT_NE(l.refusal.find(refusal), std::string::npos) << l.refusal;
    EXPECT_NE(l.refusal.find(": cases[0] (" + op), std::string::npos) << "names the case: " << l.refusal;
    EXPECT_EQ(l.refusal.find('\n'), std::string::npos) << l.refusal;
  };
  for (const Row& row : kRows) check(row.op, json::parse(row.params), row.refusal);
  for (const OpDescriptor* op : registered_ops()) {
    if (op->family != OpFamily::kCollective) continue;
    check(std::string(op->name), json::parse(kCollectiveOverflow), "parameter 'count' must be in [0, 2^31 - 1]");
    check(std::string(op->name), json::parse(kCollectiveNearLimit), nullptr);
  }
  for (const OpDescriptor* op : registered_ops()) {
    if (std::string(op->name).starts_with("toy")) continue;  // tests/ops/toy: the tests' own op
    EXPECT_TRUE(refused.contains(std::string(op->name))) << op->name << " has no overflowing row";
    EXPECT_TRUE(loaded.contains(std::string(op->name))) << op->name << " has no near-limit row";
  }
}

// Random large parameters, where the limit is crossed somewhere: a case loads exactly when its
// operands fit 2^60 bytes (each one's extent, and all together, by the 128-bit count of the
// contract's shapes), and then its footprint is the exact one.
TEST(CaseSize, RandomLargeParametersAreRefusedOrCountedExactly) {
  std::mt19937_64 rng(20261128);
  const auto dim = [&]() -> int64_t {
    const int bits = static_cast<int>(rng() % 63);  // below 2^62: products of two fit 128 bits
    const int64_t v = static_cast<int64_t>(rng() >> (64 - std::max(bits, 1))) & ((int64_t{1} << 62) - 1);
    return rng() % 16 == 0 ? 0 : v;
  };
  // Operand shapes by the contract (docs/OPS.md), fp32 throughout: 4 bytes an element.
  const auto fits = [](std::initializer_list<std::pair<int64_t, int64_t>> shapes) {
    u128 total = 0;
    for (auto [rows, cols] : shapes) {
      const u128 extent = static_cast<u128>(std::max<int64_t>(rows, 1)) * static_cast<u128>(std::max<int64_t>(cols, 1)) * 4;
      if (extent > kLimit) return false;
      total += static_cast<u128>(rows) * static_cast<u128>(cols) * 4;
    }
    return total <= kLimit;
  };
  int refusals = 0, loads = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t a = dim(), b = dim(), k = dim();
    const int which = trial % 3;
    Loaded l;
    bool expected_fit = false;
    if (which == 0) {
      l = load("gemm", {{"dtype", "fp32"}, {"m", a}, {"n", b}, {"k", k}});
      expected_fit = fits({{a, k}, {b, k}, {a, b}});
    } else if (which == 1) {
      l = load("softmax", {{"dtype", "fp32"}, {"shape", {a, b}}});
      expected_fit = fits({{a, b}, {a, b}});
    } else {
      const int64_t h = std::max<int64_t>(b, 1);  // the contract wants h >= 1
      l = load("rms_norm", {{"dtype", "fp32"}, {"t", a}, {"h", h}});
      expected_fit = fits({{a, h}, {1, h}, {a, h}});
    }
    EXPECT_EQ(l.c.has_value(), expected_fit) << "trial " << trial << " (" << a << ", " << b << ", " << k << "): " << l.refusal;
    if (l.c) {
      ++loads;
      expect_exact_footprint(*l.c);
    } else {
      ++refusals;
      EXPECT_NE(l.refusal.find("2^60 bytes a case may hold"), std::string::npos) << l.refusal;
    }
  }
  EXPECT_GT(refusals, 50);  // the draw crosses the limit both ways
  EXPECT_GT(loads, 50);
}

TEST(CheckedSize, ProductsAreExactOrRefusedNeverWrapped) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 10000; ++trial) {
    const uint64_t x = rng() >> (rng() % 64), y = rng() >> (rng() % 64);
    const u128 exact = static_cast<u128>(x) * y, sum = static_cast<u128>(x) + y;
    const auto p = checked_mul(x, y), s = checked_add(x, y);
    EXPECT_EQ(p.has_value(), exact <= UINT64_MAX);
    if (p) {
      EXPECT_EQ(static_cast<u128>(*p), exact);
    }
    EXPECT_EQ(s.has_value(), sum <= UINT64_MAX);
    if (s) {
      EXPECT_EQ(static_cast<u128>(*s), sum);
    }
  }
  const std::vector<int64_t> wraps{int64_t{1} << 40, int64_t{1} << 40}, empty{int64_t{1} << 40, int64_t{1} << 40, 0};
  EXPECT_FALSE(element_count(wraps));
  EXPECT_EQ(element_count(empty), 0u);      // exact: no element, whatever the other dimensions
  EXPECT_FALSE(shape_extent(empty));        // but its strides do not fit
  EXPECT_FALSE(element_count(std::vector<int64_t>{4, -1}));
  TensorSpec t;
  t.name = "x";
  t.shape = wraps;
  EXPECT_THROW(t.numel(), SizeError);       // once 0
}

}  // namespace
}  // namespace opcert
