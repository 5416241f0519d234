// Builds the ABI's opcert_op_call for a case: descriptors for its operands and attributes, with
// storage that lives as long as the builder.
#pragma once

#include <opcert/backend_abi.h>

#include <string>
#include <vector>

#include "model/case.h"

namespace opcert {

class OpCallBuilder {
 public:
  /// Descriptors for every operand of `c` on `device`, data pointers NULL (enough for query_op).
  /// `c` must outlive the builder (names and shapes point into it).
  OpCallBuilder(const Case& c, const std::string& impl_key, opcert_device device);
  OpCallBuilder(const OpCallBuilder&) = delete;
  OpCallBuilder& operator=(const OpCallBuilder&) = delete;

  void set_input_data(std::size_t i, void* data) { inputs_[i].data = data; }
  void set_output_data(std::size_t i, void* data) { outputs_[i].data = data; }

  const opcert_op_call& call() const { return call_; }

 private:
  std::string impl_key_;
  std::vector<opcert_tensor> inputs_;
  std::vector<opcert_tensor> outputs_;
  std::vector<opcert_attr> attrs_;
  opcert_op_call call_{};
};

}  // namespace opcert
