#include "session/execution/op_call_builder.h"

#include <variant>

namespace opcert {
namespace {

opcert_tensor descriptor(const TensorSpec& spec, opcert_device device) {
  opcert_tensor t{};
  t.struct_size = sizeof(opcert_tensor);
  t.name = spec.name.c_str();
  t.device = device;
  t.dtype = spec.dtype;
  t.ndim = static_cast<int32_t>(spec.shape.size());
  t.shape = spec.shape.data();
  return t;
}

opcert_attr attribute(const std::string& name, const AttrValue& value) {
  opcert_attr a{};
  a.struct_size = sizeof(opcert_attr);
  a.name = name.c_str();
  if (const auto* i = std::get_if<int64_t>(&value)) {
    a.kind = OPCERT_ATTR_INT;
    a.i = *i;
  } else if (const auto* f = std::get_if<double>(&value)) {
    a.kind = OPCERT_ATTR_FLOAT;
    a.f = *f;
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    a.kind = OPCERT_ATTR_STRING;
    a.s = s->c_str();
  } else {
    const auto& ints = std::get<std::vector<int64_t>>(value);
    a.kind = OPCERT_ATTR_INT_ARRAY;
    a.ints = ints.data();
    a.ints_count = static_cast<int64_t>(ints.size());
  }
  return a;
}

}  // namespace

OpCallBuilder::OpCallBuilder(const Case& c, const std::string& impl_key, opcert_device device) : impl_key_(impl_key) {
  for (const auto& s : c.inputs) inputs_.push_back(descriptor(s, device));
  for (const auto& s : c.outputs) outputs_.push_back(descriptor(s, device));
  for (const auto& [name, value] : c.attrs) attrs_.push_back(attribute(name, value));
  call_.struct_size = sizeof(opcert_op_call);
  call_.impl_key = impl_key_.c_str();
  call_.inputs = inputs_.data();
  call_.input_count = static_cast<int32_t>(inputs_.size());
  call_.outputs = outputs_.data();
  call_.output_count = static_cast<int32_t>(outputs_.size());
  call_.attrs = attrs_.data();
  call_.attr_count = static_cast<int32_t>(attrs_.size());
}

}  // namespace opcert
