#include "loader/abi_layout.h"

#include <algorithm>
#include <cstring>

namespace opcert {
namespace {

// Element `i` of an array laid out by this host (its elements' struct_size is the stride).
template <class T>
const std::byte* element(const T* array, int32_t i) {
  return reinterpret_cast<const std::byte*>(OPCERT_ARRAY_AT(T, array, i));
}

// `count` elements of `array` as `size`-byte prefixes, each with struct_size = size.
template <class T>
std::vector<std::byte> narrow(const T* array, int32_t count, std::size_t size) {
  std::vector<std::byte> out(static_cast<std::size_t>(std::max(count, 0)) * size);
  for (int32_t i = 0; i < count; ++i) {
    std::byte* dst = out.data() + static_cast<std::size_t>(i) * size;
    std::memcpy(dst, element(array, i), size);
    const std::size_t struct_size = size;
    std::memcpy(dst + offsetof(T, struct_size), &struct_size, sizeof struct_size);
  }
  return out;
}

}  // namespace

// A minor that appends a field to opcert_tensor or opcert_attr adds a line here for the minors
// before it: the last field they knew. This host's minor and newer ones know this host's sizeof.
std::size_t tensor_size_in_minor(int32_t minor) {
  if (minor >= OPCERT_ABI_VERSION_MINOR) return sizeof(opcert_tensor);
  return OPCERT_STRUCT_SIZE(opcert_tensor, byte_offset);  // 1.0 .. 1.3: unchanged
}

std::size_t attr_size_in_minor(int32_t minor) {
  if (minor >= OPCERT_ABI_VERSION_MINOR) return sizeof(opcert_attr);
  return OPCERT_STRUCT_SIZE(opcert_attr, ints_count);  // 1.0 .. 1.3: unchanged
}

CallLayout::CallLayout(const opcert_op_call& call, int32_t minor) : source_(&call) {
  const std::size_t tensor = std::min(tensor_size_in_minor(minor), sizeof(opcert_tensor));
  const std::size_t attr = std::min(attr_size_in_minor(minor), sizeof(opcert_attr));
  const auto stride = [](const auto* array, int32_t count, std::size_t fallback) {
    return count > 0 ? array[0].struct_size : fallback;
  };
  if (stride(call.inputs, call.input_count, tensor) == tensor && stride(call.outputs, call.output_count, tensor) == tensor &&
      stride(call.attrs, call.attr_count, attr) == attr)
    return;
  narrowed_ = true;
  inputs_ = narrow(call.inputs, call.input_count, tensor);
  outputs_ = narrow(call.outputs, call.output_count, tensor);
  attrs_ = narrow(call.attrs, call.attr_count, attr);
  copy_ = call;
  copy_.inputs = reinterpret_cast<const opcert_tensor*>(inputs_.data());
  copy_.outputs = reinterpret_cast<const opcert_tensor*>(outputs_.data());
  copy_.attrs = reinterpret_cast<const opcert_attr*>(attrs_.data());
}

}  // namespace opcert
