// Sizes computed with checked arithmetic (docs/SUITES.md, "Sizes"). Every element count, byte size,
// stride and offset the harness derives from a suite, or from a plugin's answers, goes through
// these: a product that passes 64 bits is an error that names the operand, never a wrapped count
// (a shape of [2^40, 2^40] once counted 0 elements and PASSED).
#pragma once

#include <opcert/backend_abi.h>

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace opcert {

/// The most bytes the operands of one case may hold, all together: 2^60 (1 EiB), representable
/// but absurd for any tensor. Below it every element count, byte size, row-major stride and byte
/// offset of an operand fits an int64 with room to spare, and a case's footprint (its operands on
/// device and host, and an fp64 reference of at most 8 bytes per element) fits a uint64 exactly.
inline constexpr uint64_t kMaxCaseBytes = uint64_t{1} << 60;

/// a * b and a + b, or nullopt where the exact result passes 2^64 - 1.
std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b);
std::optional<uint64_t> checked_add(uint64_t a, uint64_t b);

/// The product of `shape`'s dimensions, exactly (0 when one is 0); nullopt when a dimension is
/// negative or the product passes 2^64 - 1.
std::optional<uint64_t> element_count(std::span<const int64_t> shape);

/// The product of `shape`'s dimensions with each 0 counted as 1: the largest row-major stride plus
/// one step of it, which bounds every stride and offset of the shape even when it holds no
/// element; nullopt as element_count.
std::optional<uint64_t> shape_extent(std::span<const int64_t> shape);

/// log2 of shape_extent(shape) times `scale`, in double: how big a size that does not fit 64 bits
/// is ("2^80"), for messages.
double size_log2(std::span<const int64_t> shape, double scale = 1.0);

/// "2^80" for an exact power of two, else "2^80.3": a size by its order of magnitude.
std::string power_of_two_text(double log2_size);

/// An operand whose size does not fit: its name and shape, so that the suite loader can name the
/// parameters that gave them (check/suite.cpp).
class SizeError : public std::invalid_argument {
 public:
  SizeError(std::string operand, std::vector<int64_t> shape, const std::string& message)
      : std::invalid_argument(message), operand_(std::move(operand)), shape_(std::move(shape)) {}
  const std::string& operand() const { return operand_; }
  const std::vector<int64_t>& shape() const { return shape_; }

 private:
  std::string operand_;
  std::vector<int64_t> shape_;
};

/// Throws SizeError unless operand `name` of `shape` and `dtype` fits kMaxCaseBytes (its extent
/// too, so that every stride and offset fits), with a message that says how far over it is.
void require_operand_fits(const std::string& name, std::span<const int64_t> shape, opcert_dtype dtype);

}  // namespace opcert
