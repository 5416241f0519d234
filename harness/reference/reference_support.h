// Internal to harness/reference: decoding HostTensors into fp64 LibTorch tensors, reading
// operands, and turning per-row results into ReferenceOutputs that honour a SamplePlan.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/case.h"
#include "model/host_tensor.h"
#include "reference/reference.h"

namespace opcert::reference_detail {

/// Exact element decoder of one HostTensor; 8- and 16-bit dtypes go through a table built from
/// opcert::load_from, so it agrees with scalar_codec bit for bit and stays fast on large inputs.
class Decoder {
 public:
  explicit Decoder(const HostTensor& tensor);
  double operator()(int64_t i) const;
  /// dst[j] = element (offset + j * stride) for j in [0, count).
  void copy(int64_t offset, int64_t stride, int64_t count, double* dst) const;

 private:
  const std::byte* data_;
  opcert_dtype dtype_;
  const double* table_;  // nullptr for 32/64-bit dtypes
};

/// The whole tensor as a contiguous fp64 CPU tensor of the spec's shape.
at::Tensor to_torch(const HostTensor& tensor);

/// Rows of the tensor seen as [numel / row_len, row_len]: result[r] = row rows[r].
at::Tensor gather_rows(const HostTensor& tensor, int64_t row_len, std::span<const int64_t> rows);

/// The input operand `name`; throws std::invalid_argument when absent.
const HostTensor& require_input(std::span<const HostTensor> inputs, const std::string& op, const std::string& name);
/// The input operand `name`, or nullptr.
const HostTensor* optional_input(std::span<const HostTensor> inputs, const std::string& name);
/// Throws std::invalid_argument naming the operand when its shape is not `shape`.
void require_shape(const HostTensor& tensor, const std::string& op, const std::vector<int64_t>& shape);
/// Throws std::invalid_argument unless the tensor has `rank` dimensions.
void require_rank(const HostTensor& tensor, const std::string& op, std::size_t rank);
/// The output spec `name`; throws std::invalid_argument when the case does not list it.
const TensorSpec& require_output(const Case& c, const std::string& name);

/// The sorted indices requested for `output`, or nullptr when it is computed whole.
/// Throws std::invalid_argument for an index outside [0, numel) or an unsorted list.
const std::vector<int64_t>* sampled(const SamplePlan& plan, const std::string& output, int64_t numel);

/// Rows (of length row_len) an output needs: all of [0, row_count) when unsampled, else the
/// distinct rows of the sampled indices, sorted.
std::vector<int64_t> rows_needed(const std::vector<int64_t>* sample, int64_t row_len, int64_t row_count);

/// Sorted union of two sorted row lists.
std::vector<int64_t> merge_rows(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

/// Per-element results for a set of rows: tensors [n, row_len] (condition may be undefined).
struct RowBlock {
  at::Tensor values;
  at::Tensor magnitude;
  at::Tensor condition;
};

/// Collects the results of the rows an output needs, then emits the output as the plan asks.
/// Given the output's sample, it keeps the sampled elements alone as rows come in: a sampled
/// output of a large tensor needs thousands of whole rows computed (a norm's or a softmax's row is
/// one reduction) but a few thousand elements kept, not the rows' gigabytes.
class RowCollector {
 public:
  /// `sample` (sampled() of the output; null: the output whole) must outlive the collector.
  RowCollector(std::vector<int64_t> rows, int64_t row_len, bool with_condition, const std::vector<int64_t>* sample);
  const std::vector<int64_t>& rows() const { return rows_; }
  /// Position of `row` in rows(), or -1 when not collected.
  int64_t position(int64_t row) const;
  /// Stores block row r at position positions[r].
  void put(std::span<const int64_t> positions, const RowBlock& block);
  /// Stores block rows at positions [first, first + n).
  void put_range(int64_t first, const RowBlock& block);
  /// The output `name` of `numel` elements: the sampled elements when the collector has a sample,
  /// else all (rows() must then be every row).
  ReferenceOutput emit(const std::string& name, int64_t numel) const;

 private:
  std::vector<int64_t> rows_;
  int64_t row_len_;
  bool with_condition_;
  const std::vector<int64_t>* sample_;
  // With a sample: the sample's elements of rows_[p] are [first_kept_[p], first_kept_[p + 1]).
  std::vector<std::size_t> first_kept_;
  std::vector<char> filled_;  // by position: the row was put
  std::vector<double> values_, magnitude_, condition_;
};

/// Calls fn(first, rows.subspan(first, n)) over consecutive chunks of about `elements_per_chunk`
/// row elements, to bound the memory of fp64 temporaries.
template <class Fn>
void for_row_chunks(std::span<const int64_t> rows, int64_t row_len, Fn&& fn,
                    int64_t elements_per_chunk = int64_t{1} << 22) {
  const int64_t per = std::max<int64_t>(1, elements_per_chunk / std::max<int64_t>(1, row_len));
  const auto total = static_cast<int64_t>(rows.size());
  for (int64_t first = 0; first < total; first += per)
    fn(first, rows.subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(std::min(per, total - first))));
}

/// A 1-D int64 tensor holding `values`.
at::Tensor index_tensor(std::span<const int64_t> values);

/// Each element of an fp64 tensor rounded into `dtype` (as opcert::round_to), in place.
void round_in_place(at::Tensor& t, opcert_dtype dtype);

/// The elements of an integer HostTensor (cu_seqlens, positions) as int64.
std::vector<int64_t> integer_values(const HostTensor& tensor);

}  // namespace opcert::reference_detail
