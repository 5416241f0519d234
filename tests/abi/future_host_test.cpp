// A host of a future minor, whose opcert_tensor and opcert_attr have each gained a field, runs a
// plugin built against the frozen 1.0 header: with the arrays laid out for the plugin's minor
// (loader/abi_layout.h) the plugin reads every tensor and attribute right; handed the host's own
// wider arrays it would misread the second of each, and says so (the negative control).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loader/abi_layout.h"

namespace opcert {
namespace {

static_assert(OPCERT_ABI_VERSION_MINOR == 99, "compiled against the future header");

struct Plugin {
  void* library = nullptr;
  const opcert_api* api = nullptr;
  opcert_backend* backend = nullptr;
};

Plugin load_frozen_plugin() {
  Plugin p;
  p.library = dlopen(FROZEN_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (p.library == nullptr) throw std::runtime_error(dlerror());
  using Entry = const opcert_api* (*)();
  p.api = reinterpret_cast<Entry>(dlsym(p.library, OPCERT_BACKEND_ENTRY_SYMBOL))();
  opcert_initialize_args init{sizeof(init), OPCERT_ABI_VERSION_MAJOR, OPCERT_ABI_VERSION_MINOR, nullptr};
  if (p.api->initialize(&init) != nullptr) throw std::runtime_error("initialize failed");
  p.backend = init.backend;
  return p;
}

// What an error says, and released.
std::string message_of(const opcert_api* api, opcert_error* e) {
  if (e == nullptr) return "";
  opcert_error_message_args m{sizeof(m), e, nullptr};
  api->error_message(&m);
  std::string text = m.message;
  opcert_error_destroy_args d{sizeof(d), e};
  api->error_destroy(&d);
  return text;
}

class FutureHost : public ::testing::Test {
 protected:
  FutureHost() {
    const auto tensor = [&](const char* name, float* data) {
      opcert_tensor t{};
      t.struct_size = sizeof(opcert_tensor);
      t.name = name;
      t.data = data;
      t.device = {OPCERT_DEVICE_CPU, 0};
      t.dtype = OPCERT_DTYPE_F32;
      t.ndim = 1;
      t.shape = &n_;
      t.future_flags = 0xF00D;  // where a 1.0 plugin would look for the next tensor's struct_size
      return t;
    };
    inputs_ = {tensor("x", x_.data()), tensor("y", y_.data())};
    outputs_ = {tensor("z", z_.data())};
    const auto attr = [](const char* name, double value) {
      opcert_attr a{};
      a.struct_size = sizeof(opcert_attr);
      a.name = name;
      a.kind = OPCERT_ATTR_FLOAT;
      a.f = value;
      a.future_scale = 1e300;
      return a;
    };
    attrs_ = {attr("alpha", 2.0), attr("beta", -3.0)};
    call_ = {sizeof(opcert_op_call), "frozen.axpby", inputs_.data(), 2, outputs_.data(), 1, attrs_.data(), 2};
  }

  int64_t n_ = 4;
  std::vector<float> x_{1, 2, 3, 4}, y_{10, 20, 30, 40}, z_{0, 0, 0, 0};
  std::vector<opcert_tensor> inputs_, outputs_;
  std::vector<opcert_attr> attrs_;
  opcert_op_call call_{};
};

TEST_F(FutureHost, TheStructsReallyGrewAndThePluginDeclaresMinorZero) {
  EXPECT_GT(sizeof(opcert_tensor), tensor_size_in_minor(0));
  EXPECT_GT(sizeof(opcert_attr), attr_size_in_minor(0));
  const Plugin p = load_frozen_plugin();
  EXPECT_EQ(p.api->abi_major, 1);
  EXPECT_EQ(p.api->abi_minor, 0);
}

TEST_F(FutureHost, AFrozenOnePointZeroPluginReadsArraysLaidOutForItsMinor) {
  const Plugin p = load_frozen_plugin();
  const CallLayout laid_out(call_, p.api->abi_minor);
  opcert_query_op_args q{};
  q.struct_size = OPCERT_STRUCT_SIZE(opcert_query_op_args, reason);
  q.backend = p.backend;
  q.call = &laid_out.call();
  ASSERT_EQ(message_of(p.api, p.api->query_op(&q)), "");
  EXPECT_EQ(q.supported, 1) << (q.reason ? q.reason : "");
  opcert_run_op_args r{sizeof(r), p.backend, &laid_out.call(), nullptr};
  ASSERT_EQ(message_of(p.api, p.api->run_op(&r)), "");
  EXPECT_EQ(z_, (std::vector<float>{-28, -56, -84, -112}));
  EXPECT_EQ(inputs_[1].future_flags, 0xF00Du) << "the host's own call is untouched";
}

TEST_F(FutureHost, HandedTheHostsWiderArraysThePluginWouldMisreadThem) {
  const Plugin p = load_frozen_plugin();
  opcert_run_op_args r{sizeof(r), p.backend, &call_, nullptr};
  const std::string error = message_of(p.api, p.api->run_op(&r));
  // Its first tensor already says another size than its own: it cannot step through these arrays.
  EXPECT_NE(error.find("inputs[0].struct_size is " + std::to_string(sizeof(opcert_tensor)) +
                       ", not this plugin's sizeof(opcert_tensor) " + std::to_string(tensor_size_in_minor(0))),
            std::string::npos)
      << error;
  EXPECT_EQ(z_, (std::vector<float>{0, 0, 0, 0}));
}

TEST_F(FutureHost, ABackendOfThisHostsMinorGetsTheCallItselfUncopied) {
  const CallLayout same(call_, OPCERT_ABI_VERSION_MINOR);
  EXPECT_EQ(&same.call(), &call_);
}

}  // namespace
}  // namespace opcert
