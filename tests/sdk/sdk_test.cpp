// The SDK seen from the host's side: every call goes through the opcert_api table it fills.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <opcert/sdk/backend.h>

#include <new>
#include <stdexcept>

namespace opcert::sdk {
namespace {

using ::testing::ElementsAre;

// A backend whose implementations fail in every way an exception can, and one that records what
// it was called with.
class Thrower : public Backend {
 public:
  Thrower() {
    fail("sdk", [] { throw Error(OPCERT_ERROR_DEVICE, "the device fell over"); });
    fail("std", [] { throw std::runtime_error("plain runtime error"); });
    fail("alloc", [] { throw std::bad_alloc(); });
    fail("int", [] { throw 42; });
    add({"thrower.probe.x", "probe", "", nullptr, [](const OpCall& c) {
           seen_has_k = c.has("k");
           seen_k = c.get_int("k", -1);
         }});
  }
  BackendInfo info() const override { return {"thrower", "1.0", "opcert tests", ""}; }

  static inline bool seen_has_k = false;
  static inline int64_t seen_k = 0;

 private:
  void fail(const std::string& what, void (*thrower)()) {
    add({"thrower.fail." + what, "fail", "", nullptr, [thrower](const OpCall&) { thrower(); }});
  }
};

using Outcome = std::pair<int32_t, std::string>;

// An error's code and message, read through the table; the error is destroyed. {OK, ""} for none.
Outcome take(const opcert_api* api, opcert_error* error) {
  if (error == nullptr) return {OPCERT_ERROR_OK, ""};
  opcert_error_code_args code{sizeof(code), error, -1};
  api->error_code(&code);
  opcert_error_message_args message{sizeof(message), error, nullptr};
  api->error_message(&message);
  Outcome out{code.code, message.message};
  opcert_error_destroy_args destroy{sizeof(destroy), error};
  api->error_destroy(&destroy);
  return out;
}

// The host side of one initialised SDK backend.
class Host {
 public:
  explicit Host(const opcert_api* api) : api_(api) {
    opcert_initialize_args init{sizeof(init), OPCERT_ABI_VERSION_MAJOR, OPCERT_ABI_VERSION_MINOR, nullptr};
    EXPECT_EQ(api_->initialize(&init), nullptr);
    backend_ = init.backend;
  }
  ~Host() {
    opcert_finalize_args fin{sizeof(fin), backend_};
    EXPECT_EQ(api_->finalize(&fin), nullptr);
  }

  Outcome run(const opcert_op_call& call) {
    opcert_run_op_args args{sizeof(args), backend_, &call, nullptr};
    return take(api_->run_op(&args));
  }
  // Runs the implementation `key` with no operands.
  Outcome run(const char* key) { return run(opcert_op_call{sizeof(opcert_op_call), key, nullptr, 0, nullptr, 0, nullptr, 0}); }

  Outcome take(opcert_error* error) const { return opcert::sdk::take(api_, error); }

  const opcert_api* api_;
  opcert_backend* backend_ = nullptr;
};

TEST(SdkErrors, EveryExceptionBecomesAnErrorWithTheRightCode) {
  Host host(make_api<Thrower>());
  EXPECT_EQ(host.run("thrower.fail.sdk"), Outcome(OPCERT_ERROR_DEVICE, "the device fell over"));
  EXPECT_EQ(host.run("thrower.fail.std"), Outcome(OPCERT_ERROR_INTERNAL, "plain runtime error"));
  EXPECT_EQ(host.run("thrower.fail.alloc"), Outcome(OPCERT_ERROR_OUT_OF_MEMORY, "out of memory"));
  EXPECT_EQ(host.run("thrower.fail.int"), Outcome(OPCERT_ERROR_INTERNAL, "unknown exception"));
  EXPECT_EQ(host.run("thrower.fail.none"),
            Outcome(OPCERT_ERROR_NOT_FOUND, "no implementation 'thrower.fail.none' in backend 'thrower'"));
}

TEST(SdkErrors, DestroyingNoErrorIsANoOp) {
  const opcert_api* api = make_api<Thrower>();
  opcert_error_destroy_args destroy{sizeof(destroy), nullptr};
  api->error_destroy(&destroy);  // must not crash
  opcert_error_code_args code{sizeof(code), nullptr, -1};
  api->error_code(&code);
  EXPECT_EQ(code.code, OPCERT_ERROR_OK);
}

TEST(SdkErrors, InitializeRefusesAnotherHostMajor) {
  const opcert_api* api = make_api<Thrower>();
  opcert_initialize_args init{sizeof(init), OPCERT_ABI_VERSION_MAJOR + 1, 0, nullptr};
  const Outcome out = take(api, api->initialize(&init));
  EXPECT_EQ(out.first, OPCERT_ERROR_VERSION_MISMATCH);
  EXPECT_EQ(out.second, "backend built for ABI major 1, host has 2");
  EXPECT_EQ(init.backend, nullptr);
}

TEST(SdkTable, IdentityAndDevices) {
  Host host(make_api<Thrower>());
  opcert_backend_info_args info{sizeof(info), host.backend_, nullptr, nullptr, nullptr, nullptr};
  ASSERT_EQ(host.api_->backend_info(&info), nullptr);
  EXPECT_STREQ(info.name, "thrower");
  opcert_device_info_args dev{};
  dev.struct_size = sizeof(dev);
  dev.backend = host.backend_;
  dev.index = 1;
  EXPECT_EQ(host.take(host.api_->device_info(&dev)), Outcome(OPCERT_ERROR_NOT_FOUND, "device index 1 out of range"));
}

// A backend of one device with an identity (ABI 1.4).
class Identified : public Backend {
 public:
  BackendInfo info() const override { return {"identified", "1.0", "opcert tests", ""}; }
  std::vector<DeviceInfo> devices() const override {
    return {DeviceInfo{{OPCERT_DEVICE_CPU, 0}, "host", 0, 1, "GPU-00000000-1111-2222-3333-444444444444", "0000:1b:00.0"}};
  }
};

TEST(SdkTable, DeviceIdentityReachesAHostOf14) {
  Host host(make_api<Identified>());
  opcert_device_info_args dev{};
  dev.struct_size = sizeof(dev);
  dev.backend = host.backend_;
  ASSERT_EQ(host.take(host.api_->device_info(&dev)), Outcome(OPCERT_ERROR_OK, ""));
  EXPECT_STREQ(dev.uuid, "GPU-00000000-1111-2222-3333-444444444444");
  EXPECT_STREQ(dev.pci_bus_id, "0000:1b:00.0");
}

TEST(SdkTable, DeviceIdentityIsNotWrittenPastAnOlderHostsStruct) {
  Host host(make_api<Identified>());
  // A 1.3 host's struct ends at compute_units; what lies past it is the host's, not the backend's.
  opcert_device_info_args dev{};
  dev.struct_size = OPCERT_STRUCT_SIZE(opcert_device_info_args, compute_units);
  dev.backend = host.backend_;
  const char* const sentinel = "the host's own memory";
  dev.uuid = sentinel;
  dev.pci_bus_id = sentinel;
  ASSERT_EQ(host.take(host.api_->device_info(&dev)), Outcome(OPCERT_ERROR_OK, ""));
  EXPECT_STREQ(dev.name, "host");
  EXPECT_EQ(dev.uuid, sentinel);
  EXPECT_EQ(dev.pci_bus_id, sentinel);
}

// An attribute of each kind.
opcert_attr attr(const char* name, int32_t kind) {
  opcert_attr a{};
  a.struct_size = sizeof(a);
  a.name = name;
  a.kind = kind;
  return a;
}

class SdkAttributes : public ::testing::Test {
 protected:
  void SetUp() override {
    attrs_[0] = attr("n", OPCERT_ATTR_INT);
    attrs_[0].i = 3;
    attrs_[1] = attr("eps", OPCERT_ATTR_FLOAT);
    attrs_[1].f = 1e-5;
    attrs_[2] = attr("layout", OPCERT_ATTR_STRING);
    attrs_[2].s = "nhwc";
    attrs_[3] = attr("axes", OPCERT_ATTR_INT_ARRAY);
    attrs_[3].ints = axes_;
    attrs_[3].ints_count = 2;
    call_ = {sizeof(call_), "x.op.y", nullptr, 0, nullptr, 0, attrs_, 4};
  }
  static int32_t error_code_of(const std::function<void()>& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return e.code();
    }
    return OPCERT_ERROR_OK;
  }
  const int64_t axes_[2] = {0, 2};
  opcert_attr attrs_[4];
  opcert_op_call call_;
};

TEST_F(SdkAttributes, EachKindIsReadBack) {
  const OpCall c(call_);
  EXPECT_EQ(c.get_int("n", 0), 3);
  EXPECT_DOUBLE_EQ(c.get_float("eps", 0), 1e-5);
  EXPECT_DOUBLE_EQ(c.get_float("n", 0), 3.0) << "an int attribute widens to float";
  EXPECT_EQ(c.get_string("layout", ""), "nhwc");
  EXPECT_THAT(c.get_ints("axes"), ElementsAre(0, 2));
  EXPECT_TRUE(c.has("axes"));
}

TEST_F(SdkAttributes, AbsentAttributesGiveTheDefault) {
  const OpCall c(call_);
  EXPECT_FALSE(c.has("causal"));
  EXPECT_EQ(c.get_int("causal", 7), 7);
  EXPECT_DOUBLE_EQ(c.get_float("alpha", 0.5), 0.5);
  EXPECT_EQ(c.get_string("mode", "fast"), "fast");
  EXPECT_TRUE(c.get_ints("perm").empty());
}

TEST_F(SdkAttributes, WrongKindIsAnInvalidArgument) {
  const OpCall c(call_);
  EXPECT_EQ(error_code_of([&] { c.get_int("eps", 0); }), OPCERT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(error_code_of([&] { c.get_float("layout", 0); }), OPCERT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(error_code_of([&] { c.get_string("n", ""); }), OPCERT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(error_code_of([&] { c.get_ints("n"); }), OPCERT_ERROR_INVALID_ARGUMENT);
  try {
    c.get_int("eps", 0);
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "attribute 'eps' has kind 2, expected 1");
  }
}

TEST_F(SdkAttributes, MissingOperandIsAnInvalidArgument) {
  const OpCall c(call_);
  EXPECT_FALSE(c.find_input("a").has_value());
  EXPECT_EQ(error_code_of([&] { c.input("a"); }), OPCERT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(error_code_of([&] { c.output("out"); }), OPCERT_ERROR_INVALID_ARGUMENT);
}

opcert_tensor view(const int64_t* shape, int32_t ndim, const int64_t* strides) {
  opcert_tensor t{};
  t.struct_size = sizeof(t);
  t.dtype = OPCERT_DTYPE_F32;
  t.ndim = ndim;
  t.shape = shape;
  t.strides = strides;
  return t;
}

TEST(SdkTensor, ContiguousFollowsTheStrides) {
  const int64_t shape[] = {2, 3};
  EXPECT_TRUE(Tensor(view(shape, 2, nullptr)).contiguous());
  const int64_t row_major[] = {3, 1};
  EXPECT_TRUE(Tensor(view(shape, 2, row_major)).contiguous());
  const int64_t transposed[] = {1, 2};
  EXPECT_FALSE(Tensor(view(shape, 2, transposed)).contiguous());
  const int64_t padded[] = {4, 1};
  EXPECT_FALSE(Tensor(view(shape, 2, padded)).contiguous());

  const int64_t unit_shape[] = {2, 1, 3};
  const int64_t any_unit_stride[] = {3, 99, 1};  // a size-1 dimension's stride does not matter
  EXPECT_TRUE(Tensor(view(unit_shape, 3, any_unit_stride)).contiguous());
}

TEST(SdkTensor, ShapeNumelAndByteOffset) {
  const int64_t shape[] = {2, 3, 4};
  float data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  opcert_tensor raw = view(shape, 3, nullptr);
  raw.data = data;
  raw.byte_offset = 2 * sizeof(float);
  const Tensor t(raw);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.dim(-1), 4);
  EXPECT_EQ(t.dim(0), 2);
  EXPECT_EQ(*t.data<float>(), 2.f);
  EXPECT_EQ(dtype_size(OPCERT_DTYPE_BF16), 2u);
  EXPECT_EQ(dtype_size(OPCERT_DTYPE_F8_E4M3FN), 1u);
  EXPECT_EQ(dtype_size(0), 0u);
}

TEST(SdkOlderHost, FieldsPastTheCallsStructSizeAreNotRead) {
  // A host of an older minor whose opcert_op_call ends at output_count. What follows it in memory
  // (here a real attribute "k") is not part of its call and must not be seen.
  opcert_attr k = attr("k", OPCERT_ATTR_INT);
  k.i = 5;
  opcert_op_call call{sizeof(call), "thrower.probe.x", nullptr, 0, nullptr, 0, &k, 1};
  Host host(make_api<Thrower>());
  EXPECT_EQ(host.run(call), Outcome(OPCERT_ERROR_OK, ""));
  EXPECT_TRUE(Thrower::seen_has_k) << "the full-size call must carry the attribute";
  EXPECT_EQ(Thrower::seen_k, 5);

  call.struct_size = OPCERT_STRUCT_SIZE(opcert_op_call, output_count);
  EXPECT_EQ(host.run(call), Outcome(OPCERT_ERROR_OK, ""));
  EXPECT_FALSE(Thrower::seen_has_k);
  EXPECT_EQ(Thrower::seen_k, -1);
}

TEST(SdkOlderHost, CommPastTheRunArgsStructSizeIsNotRead) {
  Host host(make_api<Thrower>());
  opcert_op_call call{sizeof(call), "thrower.probe.x", nullptr, 0, nullptr, 0, nullptr, 0};
  opcert_run_op_args args{sizeof(args), host.backend_, &call, reinterpret_cast<opcert_comm*>(&call)};
  EXPECT_EQ(host.take(host.api_->run_op(&args)).first, OPCERT_ERROR_UNSUPPORTED) << "a comm goes to collectives";
  args.struct_size = OPCERT_STRUCT_SIZE(opcert_run_op_args, call);
  EXPECT_EQ(host.take(host.api_->run_op(&args)), Outcome(OPCERT_ERROR_OK, ""));
}

// Optional parts of the table.
class Timed : public Backend, public EventBackend {
 public:
  static constexpr bool kHasEvents = true;
  BackendInfo info() const override { return {"timed", "1.0", "opcert tests", ""}; }
  opcert_event* event_create(opcert_device) override { return reinterpret_cast<opcert_event*>(&ticks_); }
  void event_destroy(opcert_event*) override {}
  void event_record(opcert_event*) override { ++ticks_; }
  double event_elapsed_ms(opcert_event*, opcert_event*) override { return 1.5 * ticks_; }

 private:
  int ticks_ = 0;
};

class TimingOff : public Thrower {
 public:
  static constexpr bool kHasEvents = false;
  static constexpr bool kHasCollectives = false;
};

class Collective : public Thrower, public CommBackend {
 public:
  static constexpr bool kHasCollectives = true;
  uint32_t comm_unique_id(uint8_t* id) override {
    id[0] = 7;
    return 1;
  }
  opcert_comm* comm_init(opcert_device, int32_t, int32_t, const uint8_t*, uint32_t, double) override { return nullptr; }
  void comm_destroy(opcert_comm*) override {}
  void comm_abort(opcert_comm*) override {}
  void run_collective(const OpCall&, opcert_comm*) override {}
};

bool any_event_entry(const opcert_api* t) {
  return t->event_create || t->event_destroy || t->event_record || t->event_elapsed;
}
bool any_comm_entry(const opcert_api* t) {
  return t->comm_unique_id || t->comm_init || t->comm_destroy || t->comm_abort;
}

TEST(SdkOptionalParts, NullUnlessTheBackendOptsIn) {
  EXPECT_FALSE(any_event_entry(make_api<Thrower>()));
  EXPECT_FALSE(any_comm_entry(make_api<Thrower>()));
  EXPECT_FALSE(any_event_entry(make_api<TimingOff>())) << "kHasEvents = false opts out";
  EXPECT_FALSE(any_comm_entry(make_api<TimingOff>()));
  EXPECT_FALSE(any_comm_entry(make_api<Timed>()));
  EXPECT_FALSE(any_event_entry(make_api<Collective>()));
  const opcert_api* timed = make_api<Timed>();
  EXPECT_TRUE(timed->event_create && timed->event_destroy && timed->event_record && timed->event_elapsed);
  const opcert_api* comm = make_api<Collective>();
  EXPECT_TRUE(comm->comm_unique_id && comm->comm_init && comm->comm_destroy && comm->comm_abort);
}

TEST(SdkOptionalParts, EventsReachTheBackend) {
  Host host(make_api<Timed>());
  opcert_event_create_args create{sizeof(create), host.backend_, {OPCERT_DEVICE_CPU, 0}, nullptr};
  ASSERT_EQ(host.api_->event_create(&create), nullptr);
  opcert_event_record_args record{sizeof(record), host.backend_, create.event};
  ASSERT_EQ(host.api_->event_record(&record), nullptr);
  ASSERT_EQ(host.api_->event_record(&record), nullptr);
  opcert_event_elapsed_args elapsed{sizeof(elapsed), host.backend_, create.event, create.event, 0};
  ASSERT_EQ(host.api_->event_elapsed(&elapsed), nullptr);
  EXPECT_DOUBLE_EQ(elapsed.milliseconds, 3.0);
}

TEST(SdkOptionalParts, CommUniqueIdReachesTheBackend) {
  Host host(make_api<Collective>());
  opcert_comm_unique_id_args id{};
  id.struct_size = sizeof(id);
  id.backend = host.backend_;
  ASSERT_EQ(host.api_->comm_unique_id(&id), nullptr);
  EXPECT_EQ(id.id_bytes, 1u);
  EXPECT_EQ(id.id[0], 7);
}

}  // namespace
}  // namespace opcert::sdk
