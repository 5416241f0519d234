// The SDK's OpCall steps through a call's arrays by their elements' struct_size (ABI 1.2,
// OPCERT_ARRAY_AT), so a host whose tensors and attributes have grown is read right: here the
// arrays are laid out 24 bytes wider than this build's structs, as such a host would.
#include <opcert/sdk/op_call.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace opcert::sdk {
namespace {

constexpr std::size_t kGrowth = 24;

// `items` laid out with a stride of sizeof(T) + kGrowth, each struct_size set to that stride.
template <class T>
std::vector<std::byte> wider(const std::vector<T>& items) {
  const std::size_t stride = sizeof(T) + kGrowth;
  std::vector<std::byte> out(items.size() * stride, std::byte{0xAB});
  for (std::size_t i = 0; i < items.size(); ++i) {
    T copy = items[i];
    copy.struct_size = stride;
    std::memcpy(out.data() + i * stride, &copy, sizeof(T));
  }
  return out;
}

TEST(OpCallArrays, ElementsAreSteppedByTheirStructSize) {
  const int64_t shape[1] = {3};
  std::vector<opcert_tensor> tensors(3);
  const char* names[] = {"a", "b", "bias"};
  for (int i = 0; i < 3; ++i) {
    tensors[i].struct_size = sizeof(opcert_tensor);
    tensors[i].name = names[i];
    tensors[i].dtype = OPCERT_DTYPE_F32 + i;
    tensors[i].ndim = 1;
    tensors[i].shape = shape;
  }
  std::vector<opcert_attr> attrs(2);
  attrs[0] = {sizeof(opcert_attr), "alpha", OPCERT_ATTR_FLOAT, 0, 2.5, nullptr, nullptr, 0};
  attrs[1] = {sizeof(opcert_attr), "layout", OPCERT_ATTR_STRING, 0, 0.0, "nk", nullptr, 0};
  const auto in = wider(tensors), attr = wider(attrs);
  const opcert_op_call c{sizeof(opcert_op_call), "x.gemm.y", reinterpret_cast<const opcert_tensor*>(in.data()), 3,
                         nullptr, 0, reinterpret_cast<const opcert_attr*>(attr.data()), 2};
  const OpCall call(c);
  ASSERT_TRUE(call.find_input("bias").has_value());
  EXPECT_EQ(call.input("bias").dtype(), OPCERT_DTYPE_F32 + 2);
  EXPECT_EQ(call.input_at(1).dtype(), OPCERT_DTYPE_F32 + 1);
  EXPECT_EQ(call.get_string("layout", "kn"), "nk");
  EXPECT_DOUBLE_EQ(call.get_float("alpha", 0.0), 2.5);
  EXPECT_FALSE(call.find_input("c").has_value());
}

}  // namespace
}  // namespace opcert::sdk
