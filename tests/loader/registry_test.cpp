#include "loader/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <opcert/sdk/backend.h>

#include <vector>

namespace opcert {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// In-process SDK backends, registered as built-ins; only their names differ.
template <const char* Name>
class Named : public sdk::Backend {
 public:
  sdk::BackendInfo info() const override { return {Name, "0.1", "opcert tests", "in-process"}; }
};
constexpr char kCpu[] = "cpu";
constexpr char kTestA[] = "test_a";
constexpr char kTestB[] = "test_b";

template <const char* Name>
const opcert_api* get_api() {
  return sdk::make_api<Named<Name>>();
}

std::vector<std::string> names(const std::vector<BackendHandle*>& backends) {
  std::vector<std::string> out;
  for (const BackendHandle* b : backends) out.push_back(b->name());
  return out;
}

TEST(Registry, BuiltinIsRegisteredAndFound) {
  Registry r;
  r.add_builtin("cpu", &get_api<kCpu>);
  EXPECT_THAT(r.unavailable(), IsEmpty());
  BackendHandle* cpu = r.find("cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->version(), "0.1");
  EXPECT_EQ(cpu->source().kind, BackendSource::Kind::kBuiltin);
  EXPECT_EQ(cpu->source().describe(), "built-in cpu");
  ASSERT_EQ(cpu->devices().size(), 1u);
  EXPECT_EQ(cpu->devices()[0].name, "host");
  EXPECT_EQ(r.find("cuda"), nullptr);
}

TEST(Registry, DuplicateBuiltinIsRefused) {
  Registry r;
  r.add_builtin("cpu", &get_api<kCpu>);
  r.add_builtin("cpu again", &get_api<kCpu>);
  EXPECT_EQ(r.backends().size(), 1u);
  ASSERT_EQ(r.unavailable().size(), 1u);
  EXPECT_EQ(r.unavailable()[0].source, "built-in cpu again");
  EXPECT_EQ(r.unavailable()[0].reason,
            "duplicate backend name 'cpu': already provided by built-in cpu; this one comes from built-in cpu again");
}

TEST(Registry, BrokenBuiltinIsRecordedNotThrown) {
  Registry r;
  r.add_builtin("null", [] { return static_cast<const opcert_api*>(nullptr); });
  EXPECT_THAT(r.backends(), IsEmpty());
  ASSERT_EQ(r.unavailable().size(), 1u);
  EXPECT_EQ(r.unavailable()[0].source, "built-in null");
  EXPECT_EQ(r.unavailable()[0].reason, "the entry point returned a null function table");
}

TEST(Registry, SelectByGlobsAndExclusionsInRegistrationOrder) {
  Registry r;
  r.add_builtin("test_b", &get_api<kTestB>);
  r.add_builtin("cpu", &get_api<kCpu>);
  r.add_builtin("test_a", &get_api<kTestA>);
  EXPECT_THAT(names(r.select("*")), ElementsAre("test_b", "cpu", "test_a"));
  EXPECT_THAT(names(r.select("")), ElementsAre("test_b", "cpu", "test_a"));
  EXPECT_THAT(names(r.select("test_*")), ElementsAre("test_b", "test_a"));
  EXPECT_THAT(names(r.select("*,!cpu")), ElementsAre("test_b", "test_a"));
  EXPECT_THAT(names(r.select("!test_*")), ElementsAre("cpu"));
  EXPECT_THAT(names(r.select("cpu, test_a")), ElementsAre("cpu", "test_a"));
  EXPECT_THAT(r.select("cuda*"), IsEmpty());
}

// Loads a test plugin library straight into the registry (no discovery).
void add_plugin(Registry& r, const std::string& path) {
  auto library = DynamicLibrary::open(path);
  auto get_api = reinterpret_cast<opcert_get_api_fn>(library->symbol(OPCERT_BACKEND_ENTRY_SYMBOL));
  ASSERT_NE(get_api, nullptr) << path;
  BackendSource source;
  source.kind = BackendSource::Kind::kPlugin;
  source.library_path = path;
  r.add_plugin(std::move(library), get_api(), source);
}

// A host fp32 tensor view; shape must outlive it.
opcert_tensor tensor(const char* name, void* data, const std::vector<int64_t>& shape,
                     int32_t dtype = OPCERT_DTYPE_F32) {
  opcert_tensor t{};
  t.struct_size = sizeof(t);
  t.name = name;
  t.data = data;
  t.device = {OPCERT_DEVICE_CPU, 0};
  t.dtype = dtype;
  t.ndim = static_cast<int32_t>(shape.size());
  t.shape = shape.data();
  return t;
}

opcert_op_call call(const char* key, const opcert_tensor& x, const opcert_tensor& y) {
  opcert_op_call c{};
  c.struct_size = sizeof(c);
  c.impl_key = key;
  c.inputs = &x;
  c.input_count = 1;
  c.outputs = &y;
  c.output_count = 1;
  return c;
}

TEST(Registry, OlderMinorPluginWorksWithoutOptionalParts) {
  Registry r;
  add_plugin(r, TEST_OLD_MINOR_PLUGIN);
  ASSERT_THAT(r.unavailable(), IsEmpty());
  BackendHandle* b = r.find("test_old_minor");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->api().struct_size, OPCERT_STRUCT_SIZE(opcert_api, run_op));  // the plugin simulates 1.0 up to run_op
  EXPECT_FALSE(b->has_events());
  EXPECT_FALSE(b->has_collectives());

  const std::vector<int64_t> shape{4};
  std::vector<float> x{1, 2, 3, 4}, y(4, 0.f);
  const opcert_tensor xt = tensor("x", x.data(), shape), yt = tensor("y", y.data(), shape);
  const opcert_op_call c = call("test_old_minor.copy.reference", xt, yt);
  EXPECT_TRUE(b->query(c).supported);
  b->run(c);
  b->synchronize({OPCERT_DEVICE_CPU, 0});
  EXPECT_EQ(y, x);
}

TEST(Registry, DevicesCarryTheIdentityTheirBackendGives) {
  Registry r;
  add_plugin(r, TEST_DEVICES_PLUGIN);  // 3 devices, "TEST-DEVICE-<i>"; the last without a PCI bus id
  BackendHandle* b = r.find("devices");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->devices().size(), 3u);
  EXPECT_EQ(b->devices()[1].uuid, "TEST-DEVICE-1");
  EXPECT_EQ(b->devices()[1].pci_bus_id, "0000:01:00.0");
  EXPECT_EQ(b->devices()[2].uuid, "TEST-DEVICE-2");
  EXPECT_EQ(b->devices()[2].pci_bus_id, "") << "unknown stays empty";
}

class RegistryGoodPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    add_plugin(registry_, TEST_GOOD_PLUGIN);
    ASSERT_THAT(registry_.unavailable(), IsEmpty());
    good_ = registry_.find("test_good");
    ASSERT_NE(good_, nullptr);
  }
  Registry registry_;
  BackendHandle* good_ = nullptr;
};

TEST_F(RegistryGoodPlugin, ReportsItsImplementation) {
  EXPECT_EQ(good_->version(), "1.2.3");
  ASSERT_EQ(good_->implementations().size(), 1u);
  EXPECT_EQ(good_->implementations()[0].key, "test_good.softmax.reference");
  EXPECT_EQ(good_->implementations()[0].op, "softmax");
  EXPECT_EQ(good_->abi_major(), OPCERT_ABI_VERSION_MAJOR);
}

TEST_F(RegistryGoodPlugin, SoftmaxThroughTheAbiMatchesAHandComputation) {
  const std::vector<int64_t> shape{3, 3};
  std::vector<float> x{1, 2, 3, /**/ -1, 0, 1000, /**/ 2, 2, 2};
  std::vector<float> y(9, -1.f);
  const opcert_tensor xt = tensor("x", x.data(), shape), yt = tensor("y", y.data(), shape);
  const opcert_op_call c = call("test_good.softmax.reference", xt, yt);

  const SupportAnswer answer = good_->query(c);
  EXPECT_TRUE(answer.supported);
  EXPECT_EQ(answer.reason, "");
  good_->run(c);
  good_->synchronize({OPCERT_DEVICE_CPU, 0});

  // softmax(1,2,3) = e^(i-3) / (1 + e^-1 + e^-2); a row with 1000 is one-hot (and must not overflow).
  const std::vector<float> expected{0.09003057f, 0.24472847f, 0.66524096f, 0.f, 0.f, 1.f,
                                    1.f / 3, 1.f / 3, 1.f / 3};
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], expected[i], 1e-6) << "element " << i;
}

TEST_F(RegistryGoodPlugin, UnsupportedDtypeIsAnsweredWithAReason) {
  const std::vector<int64_t> shape{2, 2};  // queries carry no data
  const opcert_tensor xt = tensor("x", nullptr, shape, OPCERT_DTYPE_F16);
  const opcert_tensor yt = tensor("y", nullptr, shape, OPCERT_DTYPE_F16);
  const SupportAnswer answer = good_->query(call("test_good.softmax.reference", xt, yt));
  EXPECT_FALSE(answer.supported);
  EXPECT_EQ(answer.reason, "test_good softmax supports only fp32");
}

TEST_F(RegistryGoodPlugin, RunningAnUnsupportedCaseThrowsUnsupported) {
  const std::vector<int64_t> shape{2, 2};
  std::vector<uint16_t> x(4), y(4);
  const opcert_tensor xt = tensor("x", x.data(), shape, OPCERT_DTYPE_F16);
  const opcert_tensor yt = tensor("y", y.data(), shape, OPCERT_DTYPE_F16);
  try {
    good_->run(call("test_good.softmax.reference", xt, yt));
    FAIL() << "run accepted an fp16 softmax";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), OPCERT_ERROR_UNSUPPORTED);
    EXPECT_EQ(std::string(e.what()), "run_op failed: test_good softmax supports only fp32");
  }
}

TEST_F(RegistryGoodPlugin, UnknownImplementationKeyIsNotFound) {
  const std::vector<int64_t> shape{1};
  float x = 0, y = 0;
  const opcert_tensor xt = tensor("x", &x, shape), yt = tensor("y", &y, shape);
  try {
    good_->query(call("test_good.softmax.missing", xt, yt));
    FAIL() << "query accepted an unknown implementation key";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), OPCERT_ERROR_NOT_FOUND);
    EXPECT_EQ(std::string(e.what()),
              "query_op failed: no implementation 'test_good.softmax.missing' in backend 'test_good'");
  }
}

TEST_F(RegistryGoodPlugin, HostMemoryRoundTrip) {
  const opcert_device host{OPCERT_DEVICE_CPU, 0};
  void* p = good_->allocate(host, 16, 128);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 128, 0u);
  const int in[4] = {1, 2, 3, 4};
  int out[4] = {};
  good_->copy(host, OPCERT_COPY_HOST_TO_DEVICE, p, in, sizeof(in));
  good_->copy(host, OPCERT_COPY_DEVICE_TO_HOST, out, p, sizeof(out));
  good_->free(host, p);
  EXPECT_THAT(out, ElementsAre(1, 2, 3, 4));
}

}  // namespace
}  // namespace opcert
