// A call built in a test, for the operand parsers: named operands (dtype, shape, memory, data or
// none) and attributes, read through the SDK's OpCall as a backend reads them. Then parse() runs a
// parser the way a query (no data needed) or a run (data required) does.
#pragma once

#include <opcert/sdk/call_check.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opcert::sdk::test {

/// A parser's typed operands and the check it recorded into.
template <class Operands>
struct Parsed {
  Operands operands;
  bool ok = false;
  std::string reason;
};

class TestCall {
 public:
  /// Adds an input (an output) with host memory and a non-null data pointer.
  TestCall& in(std::string name, int32_t dtype, std::vector<int64_t> shape) {
    return add(inputs_, std::move(name), dtype, std::move(shape));
  }
  TestCall& out(std::string name, int32_t dtype, std::vector<int64_t> shape) {
    return add(outputs_, std::move(name), dtype, std::move(shape));
  }
  /// Moves the last operand added to memory of `device_type`.
  TestCall& on(int32_t device_type) {
    last_->device.type = device_type;
    return *this;
  }
  /// Takes the last operand's data away (as in a query).
  TestCall& without_data() {
    last_->data = nullptr;
    return *this;
  }
  /// Changes the last operand's dtype.
  TestCall& as(int32_t dtype) {
    last_->dtype = dtype;
    return *this;
  }
  /// The last operand's shape.
  const std::vector<int64_t>& shape() const { return last_->shape; }
  /// Gives the last operand strides (in elements).
  TestCall& strided(std::vector<int64_t> strides) {
    last_->strides = std::move(strides);
    return *this;
  }

  /// The names of the operands, inputs first.
  std::vector<std::string> operand_names() const {
    std::vector<std::string> names;
    for (const auto* list : {&inputs_, &outputs_})
      for (const Operand& o : *list) names.push_back(o.name);
    return names;
  }
  /// Whether operand `name` is an input (else an output).
  bool is_input(const std::string& name) const {
    for (const Operand& o : inputs_)
      if (o.name == name) return true;
    return false;
  }
  /// Selects operand `name` for on(), without_data() and strided().
  TestCall& select(const std::string& name) {
    for (auto* list : {&inputs_, &outputs_})
      for (Operand& o : *list)
        if (o.name == name) last_ = &o;
    return *this;
  }
  /// Removes operand `name`.
  TestCall& remove(const std::string& name) {
    for (auto* list : {&inputs_, &outputs_})
      for (auto it = list->begin(); it != list->end(); ++it)
        if (it->name == name) {
          list->erase(it);
          last_ = nullptr;
          return *this;
        }
    return *this;
  }

  TestCall& attr(std::string name, int64_t value) { return add_attr(std::move(name), OPCERT_ATTR_INT, value, 0.0, ""); }
  TestCall& attr(std::string name, int value) { return attr(std::move(name), static_cast<int64_t>(value)); }
  TestCall& attr(std::string name, double value) { return add_attr(std::move(name), OPCERT_ATTR_FLOAT, 0, value, ""); }
  TestCall& attr(std::string name, const char* value) { return add_attr(std::move(name), OPCERT_ATTR_STRING, 0, 0.0, value); }

  /// Runs `parser` on the call as a query (need_data false) or a run (true) does, the operands
  /// expected in memory of `device_type`.
  template <class Parser>
  auto parse(Parser parser, bool need_data = false, int32_t device_type = OPCERT_DEVICE_CPU) {
    build();
    const OpCall view(call_);
    CallCheck check(view, need_data, device_type);
    auto operands = parser(view, check);
    return Parsed<decltype(operands)>{std::move(operands), check.ok(), check.reason()};
  }

  /// The ABI call (valid until this TestCall changes or goes).
  const opcert_op_call& call() {
    build();
    return call_;
  }

 private:
  struct Operand {
    std::string name;
    int32_t dtype;
    std::vector<int64_t> shape;
    std::optional<std::vector<int64_t>> strides;
    opcert_device device{OPCERT_DEVICE_CPU, 0};
    void* data;
  };
  struct Attribute {
    std::string name;
    int32_t kind;
    int64_t i;
    double f;
    std::string s;
  };

  TestCall& add(std::deque<Operand>& list, std::string name, int32_t dtype, std::vector<int64_t> shape) {
    list.push_back({std::move(name), dtype, std::move(shape), std::nullopt, {OPCERT_DEVICE_CPU, 0}, &dummy_});
    last_ = &list.back();
    return *this;
  }
  TestCall& add_attr(std::string name, int32_t kind, int64_t i, double f, std::string s) {
    attrs_.push_back({std::move(name), kind, i, f, std::move(s)});
    return *this;
  }

  static std::vector<opcert_tensor> tensors(std::deque<Operand>& list) {
    std::vector<opcert_tensor> out;
    for (Operand& o : list)
      out.push_back({sizeof(opcert_tensor), o.name.c_str(), o.data, o.device, o.dtype, static_cast<int32_t>(o.shape.size()),
                     o.shape.data(), o.strides ? o.strides->data() : nullptr, 0});
    return out;
  }

  void build() {
    in_ = tensors(inputs_);
    out_ = tensors(outputs_);
    attr_.clear();
    for (const Attribute& a : attrs_)
      attr_.push_back({sizeof(opcert_attr), a.name.c_str(), a.kind, a.i, a.f, a.s.c_str(), nullptr, 0});
    call_ = {sizeof(opcert_op_call), "test.op.parsed", in_.data(), static_cast<int32_t>(in_.size()), out_.data(),
             static_cast<int32_t>(out_.size()), attr_.data(), static_cast<int32_t>(attr_.size())};
  }

  std::deque<Operand> inputs_, outputs_;
  std::deque<Attribute> attrs_;
  Operand* last_ = nullptr;
  std::vector<opcert_tensor> in_, out_;
  std::vector<opcert_attr> attr_;
  opcert_op_call call_{};
  static inline float dummy_ = 0.0f;  // where every operand's data points unless taken away (never read)
};

}  // namespace opcert::sdk::test
