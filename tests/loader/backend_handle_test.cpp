#include "loader/backend_handle.h"

#include <gtest/gtest.h>
#include <opcert/sdk/backend.h>

namespace opcert {
namespace {

// Counts live instances so tests can check that a refused backend was finalized.
int g_live = 0;

class Fine : public sdk::Backend {
 public:
  Fine() { ++g_live; }
  ~Fine() override { --g_live; }
  sdk::BackendInfo info() const override { return {"fine", "1.0", "opcert tests", ""}; }
};

class Nameless : public Fine {
 public:
  sdk::BackendInfo info() const override { return {"", "1.0", "opcert tests", ""}; }
};

class ForeignKey : public Fine {
 public:
  ForeignKey() { add({"finer.gemm.x", "gemm", "", nullptr, [](const sdk::OpCall&) {}}); }
};

class NoDevice : public sdk::Backend {
 public:
  NoDevice() { throw sdk::Error(OPCERT_ERROR_DEVICE, "device not present"); }
  sdk::BackendInfo info() const override { return {"nodevice", "1.0", "opcert tests", ""}; }
};

// A writable copy of an SDK table, to damage one part of it.
opcert_api fine_table() { return *sdk::make_api<Fine>(); }

// BackendHandle::open's BackendError for a table (or a marker when it opens).
BackendError open_error(const opcert_api* api) {
  try {
    BackendHandle::open(api, BackendSource{});
  } catch (const BackendError& e) {
    return e;
  }
  return BackendError(OPCERT_ERROR_OK, "<opened>");
}

TEST(AbiIncompatibility, NullTable) {
  EXPECT_EQ(abi_incompatibility(nullptr), "the entry point returned a null function table");
}

TEST(AbiIncompatibility, TableTooSmallToCarryAVersion) {
  opcert_api t = fine_table();
  t.struct_size = OPCERT_STRUCT_SIZE(opcert_api, abi_major);  // abi_minor lies past it
  EXPECT_EQ(abi_incompatibility(&t),
            "function table too small to carry a version (struct_size " + std::to_string(t.struct_size) + ")");
}

TEST(AbiIncompatibility, WrongMajorNamesBothVersions) {
  opcert_api t = fine_table();
  t.abi_major = OPCERT_ABI_VERSION_MAJOR + 1;
  t.abi_minor = 4;
  EXPECT_EQ(abi_incompatibility(&t),
            "ABI major version mismatch: backend built for ABI 2.4, this opcert speaks ABI 1.4; rebuild the "
            "backend against opcert's backend_abi.h 1.x");
  t.abi_major = 0;
  EXPECT_NE(abi_incompatibility(&t), std::nullopt);
}

TEST(AbiIncompatibility, MissingRequiredEntry) {
  opcert_api t = fine_table();
  t.query_op = nullptr;
  EXPECT_EQ(abi_incompatibility(&t), "function table of ABI 1.4 (struct_size " + std::to_string(sizeof(opcert_api)) +
                                         ") lacks a required 1.0 entry");
  t = fine_table();
  t.struct_size = offsetof(opcert_api, run_op);  // run_op is set but lies past the reported size
  EXPECT_NE(abi_incompatibility(&t), std::nullopt);
}

TEST(AbiIncompatibility, CompleteTablesAreAccepted) {
  opcert_api t = fine_table();
  EXPECT_EQ(abi_incompatibility(&t), std::nullopt);
  t.struct_size = OPCERT_STRUCT_SIZE(opcert_api, run_op);  // an older minor without the optional parts
  EXPECT_EQ(abi_incompatibility(&t), std::nullopt);
}

TEST(BackendHandle, NewerMinorWithALargerTableOpens) {
  struct Newer {
    opcert_api api;
    void* entry_from_a_later_minor;
  } newer{fine_table(), nullptr};
  newer.api.struct_size = sizeof(Newer);
  newer.api.abi_minor = OPCERT_ABI_VERSION_MINOR + 3;
  auto h = BackendHandle::open(&newer.api, BackendSource{});
  EXPECT_EQ(h->name(), "fine");
  EXPECT_EQ(h->abi_minor(), OPCERT_ABI_VERSION_MINOR + 3);
}

TEST(BackendHandle, OpenRefusesAnIncompatibleTableWithVersionMismatch) {
  opcert_api t = fine_table();
  t.abi_major = OPCERT_ABI_VERSION_MAJOR + 1;
  const BackendError e = open_error(&t);
  EXPECT_EQ(e.code(), OPCERT_ERROR_VERSION_MISMATCH);
  EXPECT_EQ(std::string(e.what()), *abi_incompatibility(&t));
  EXPECT_EQ(g_live, 0) << "a refused table must not be initialized";
}

TEST(BackendHandle, InitializeErrorCarriesTheBackendsCodeAndMessage) {
  const BackendError e = open_error(sdk::make_api<NoDevice>());
  EXPECT_EQ(e.code(), OPCERT_ERROR_DEVICE);
  EXPECT_EQ(std::string(e.what()), "initialize failed: device not present");
}

TEST(BackendHandle, EmptyNameIsRefusedAndTheBackendFinalized) {
  const BackendError e = open_error(sdk::make_api<Nameless>());
  EXPECT_EQ(std::string(e.what()), "backend_info returned an empty name");
  EXPECT_EQ(g_live, 0);
}

TEST(BackendHandle, ForeignImplementationKeyIsRefusedAndTheBackendFinalized) {
  const BackendError e = open_error(sdk::make_api<ForeignKey>());
  EXPECT_EQ(e.code(), OPCERT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(e.what()), "implementation key 'finer.gemm.x' must start with 'fine.'");
  EXPECT_EQ(g_live, 0);
}

TEST(BackendHandle, DestructionFinalizes) {
  {
    auto h = BackendHandle::open(sdk::make_api<Fine>(), BackendSource{});
    EXPECT_EQ(g_live, 1);
  }
  EXPECT_EQ(g_live, 0);
}

TEST(BackendHandle, EventsNeedAllFourEntries) {
  opcert_api t = fine_table();
  auto h = BackendHandle::open(&t, BackendSource{});
  EXPECT_FALSE(h->has_events());
  t.event_create = [](opcert_event_create_args*) -> opcert_error* { return nullptr; };
  EXPECT_FALSE(h->has_events()) << "event_create alone does not make device timing";
}

}  // namespace
}  // namespace opcert
