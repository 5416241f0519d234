// Validation of an op call's operands for the GEMM and quantize ops: presence, host device,
// dense layout, dtype and shape. The first problem found becomes the one-line reason that
// query_op reports (and that run throws as INVALID_ARGUMENT when called without a query).
#pragma once

#include <opcert/sdk/backend.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opcert::cpu {

class CallCheck {
 public:
  /// `need_data`: true for run (buffers must be present), false for a query.
  CallCheck(const sdk::OpCall& call, bool need_data) : call_(call), need_data_(need_data) {}

  /// The named input/output if present and usable (host memory, dense, data when needed);
  /// records a failure when it is required and missing or unusable.
  std::optional<sdk::Tensor> input(std::string_view name, bool required = true);
  std::optional<sdk::Tensor> output(std::string_view name, bool required = true);

  /// Records a failure unless t's dtype is one of `allowed`.
  void dtype(const sdk::Tensor& t, std::initializer_list<int32_t> allowed);

  /// Records a failure unless t's shape equals `expected`; `labels` names each dimension in the
  /// message (e.g. "[M, K]").
  void shape(const sdk::Tensor& t, std::vector<int64_t> expected, std::string_view labels);

  /// Records `reason` when `condition` is false.
  void require(bool condition, std::string reason);

  bool ok() const { return reason_.empty(); }
  const std::string& reason() const { return reason_; }

  /// query: the verdict. run: throws sdk::Error(INVALID_ARGUMENT) with the reason unless ok().
  sdk::Support support() const;
  void throw_if_failed() const;

 private:
  std::optional<sdk::Tensor> usable(std::optional<sdk::Tensor> t, std::string_view kind, std::string_view name,
                                    bool required);

  const sdk::OpCall& call_;
  bool need_data_;
  std::string reason_;
};

/// "[2, 3]" for a shape.
std::string shape_string(std::vector<int64_t> dims);

/// The value of string attribute `name` (default `fallback`) if it is one of `allowed`;
/// otherwise records why and returns the default.
std::string string_choice(CallCheck& check, const sdk::OpCall& call, std::string_view name, std::string_view fallback,
                          std::initializer_list<std::string_view> allowed);

}  // namespace opcert::cpu
