#include "loader/plugin_discovery.h"

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "loader/file_digest.h"
#include "loader/temp_dir.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

std::string manifest(const std::string& name, const std::string& library, const std::string& abi = "1.0") {
  return "{\"file_format_version\": \"1.0.0\", \"backend\": {\"name\": \"" + name + "\", \"library_path\": \"" +
         library + "\", \"abi_version\": \"" + abi + "\"}}";
}

// A plugin directory holding the good plugin's manifest (good.json) next to whatever a test adds.
class PluginDiscovery : public ::testing::Test {
 protected:
  void SetUp() override { good_manifest_ = dir_.write("good.json", manifest("test_good", TEST_GOOD_PLUGIN)); }

  // Scans the directory with the given options.
  void discover(DiscoveryOptions options = {}) {
    options.plugin_dirs.insert(options.plugin_dirs.begin(), dir_.path().string());
    discover_plugins(registry_, options);
  }

  // Scans the directory, expecting the good plugin to load and `manifest` (in the directory) to be
  // the one unavailable entry; returns that entry's reason.
  std::string only_failure(const std::string& manifest) {
    discover();
    EXPECT_NE(registry_.find("test_good"), nullptr) << "the good plugin must still load";
    EXPECT_EQ(registry_.backends().size(), 1u);
    if (registry_.unavailable().size() != 1) {
      ADD_FAILURE() << registry_.unavailable().size() << " unavailable entries, expected 1";
      return {};
    }
    EXPECT_EQ(registry_.unavailable()[0].source, dir_ / manifest);
    return registry_.unavailable()[0].reason;
  }

  opcert::testing::TempDir dir_;
  std::string good_manifest_;
  Registry registry_;
};

TEST_F(PluginDiscovery, GoodPluginLoadsWithProvenance) {
  discover();
  ASSERT_THAT(registry_.unavailable(), IsEmpty());
  ASSERT_EQ(registry_.backends().size(), 1u);
  const BackendHandle& b = *registry_.backends()[0];
  EXPECT_EQ(b.name(), "test_good");
  EXPECT_EQ(b.version(), "1.2.3");
  const BackendSource& s = b.source();
  EXPECT_EQ(s.kind, BackendSource::Kind::kPlugin);
  EXPECT_EQ(s.library_path, fs::canonical(TEST_GOOD_PLUGIN).string());
  EXPECT_EQ(s.manifest_path, good_manifest_);
  EXPECT_EQ(s.declared_name, "test_good");
  EXPECT_THAT(s.sha256, MatchesRegex("[0-9a-f]{64}"));
  EXPECT_EQ(s.sha256, sha256_file_hex(TEST_GOOD_PLUGIN));
  EXPECT_EQ(s.describe(), good_manifest_);
}

// A manifest's abi_version that differs from what the library reports is flagged, not refused.
TEST_F(PluginDiscovery, AManifestDeclaringAnotherAbiThanTheLibraryReportsIsFlagged) {
  discover();  // good.json declares 1.0; test_good is built against this header
  ASSERT_EQ(registry_.backends().size(), 1u);
  const BackendHandle& stale = *registry_.backends()[0];
  ASSERT_EQ(stale.abi_major(), OPCERT_ABI_VERSION_MAJOR);
  ASSERT_EQ(stale.abi_minor(), OPCERT_ABI_VERSION_MINOR);
  ASSERT_NE(OPCERT_ABI_VERSION_MINOR, 0) << "the test needs a header past 1.0";
  EXPECT_EQ(stale.source().declared_abi, "1.0");
  EXPECT_EQ(stale.source().abi_declaration_mismatch(stale.abi_major(), stale.abi_minor()),
            "its manifest declares ABI 1.0, the library reports " + std::to_string(OPCERT_ABI_VERSION_MAJOR) + "." +
                std::to_string(OPCERT_ABI_VERSION_MINOR));

  opcert::testing::TempDir exact_dir;
  exact_dir.write("good.json", manifest("test_good", TEST_GOOD_PLUGIN,
                                        std::to_string(OPCERT_ABI_VERSION_MAJOR) + "." + std::to_string(OPCERT_ABI_VERSION_MINOR)));
  Registry exact;
  discover_plugins(exact, {{exact_dir.path().string()}, {}});
  ASSERT_EQ(exact.backends().size(), 1u);
  EXPECT_EQ(exact.backends()[0]->source().abi_declaration_mismatch(OPCERT_ABI_VERSION_MAJOR, OPCERT_ABI_VERSION_MINOR), "");

  Registry direct;  // --plugin LIB: no manifest, nothing declared
  discover_plugins(direct, {{}, {TEST_GOOD_PLUGIN}});
  ASSERT_EQ(direct.backends().size(), 1u);
  EXPECT_EQ(direct.backends()[0]->source().abi_declaration_mismatch(OPCERT_ABI_VERSION_MAJOR, OPCERT_ABI_VERSION_MINOR), "");
}

TEST_F(PluginDiscovery, MalformedManifestNamesLineAndColumn) {
  dir_.write("bad.json", "{\n  \"file_format_version\": \"1.0.0\",\n  oops\n}\n");
  EXPECT_THAT(only_failure("bad.json"), StartsWith(dir_ / "bad.json" + ":3:3: invalid JSON"));
}

TEST_F(PluginDiscovery, MissingLibrary) {
  dir_.write("missing.json", manifest("ghost", "libghost.so"));
  EXPECT_EQ(only_failure("missing.json"), "library not found: " + dir_ / "libghost.so" + " (No such file or directory)");
}

TEST_F(PluginDiscovery, NotASharedObjectGivesDlopenText) {
  const std::string fake = dir_.write("libfake.so", "this is not an ELF file\n");
  dir_.write("fake.json", manifest("fake", "libfake.so"));
  ASSERT_EQ(dlopen(fake.c_str(), RTLD_NOW | RTLD_LOCAL), nullptr);
  const std::string dlopen_text = dlerror();
  EXPECT_EQ(only_failure("fake.json"), "cannot load " + fake + ": " + dlopen_text);
}

TEST_F(PluginDiscovery, MissingEntrySymbol) {
  dir_.write("nosym.json", manifest("nosym", TEST_MISSING_SYMBOL_PLUGIN));
  EXPECT_THAT(only_failure("nosym.json"),
              AllOf(StartsWith(fs::canonical(TEST_MISSING_SYMBOL_PLUGIN).string()),
                    HasSubstr("does not export the entry symbol 'opcert_backend_get_api'")));
}

TEST_F(PluginDiscovery, AbiMajorDeclaredInManifestIsCheckedBeforeLoading) {
  dir_.write("future.json", manifest("test_good", TEST_GOOD_PLUGIN, "2.1"));
  EXPECT_EQ(only_failure("future.json"),
            "ABI major version mismatch: the manifest declares ABI 2.1, this opcert speaks ABI 1.4");
}

TEST_F(PluginDiscovery, AbiMajorFromTheTableNamesBothVersions) {
  dir_.write("wrong_major.json", manifest("test_wrong_major", TEST_WRONG_MAJOR_PLUGIN));
  EXPECT_THAT(only_failure("wrong_major.json"),
              AllOf(HasSubstr("ABI major version mismatch"), HasSubstr("backend built for ABI 2.0"),
                    HasSubstr("this opcert speaks ABI 1.4")));
}

TEST_F(PluginDiscovery, InitializeErrorText) {
  dir_.write("init.json", manifest("test_init_fails", TEST_INIT_FAILS_PLUGIN));
  EXPECT_EQ(only_failure("init.json"), "initialize failed: device not present");
}

TEST_F(PluginDiscovery, DuplicateNameNamesBothSources) {
  dir_.write("twin.json", manifest("test_good", TEST_GOOD_TWIN_PLUGIN));  // sorts after good.json
  EXPECT_EQ(only_failure("twin.json"), "duplicate backend name 'test_good': already provided by " + good_manifest_ +
                                           "; this one comes from " + dir_ / "twin.json");
  ASSERT_NE(registry_.find("test_good"), nullptr);
  EXPECT_EQ(registry_.find("test_good")->version(), "1.2.3");
}

TEST_F(PluginDiscovery, ManifestNameMustMatchTheLibrary) {
  dir_.write("renamed.json", manifest("npu", TEST_GOOD_TWIN_PLUGIN));
  EXPECT_EQ(only_failure("renamed.json"), "the manifest declares backend 'npu' but the library reports 'test_good'");
}

TEST_F(PluginDiscovery, ImplementationKeyMustCarryTheBackendPrefix) {
  dir_.write("bad_key.json", manifest("test_bad_key", TEST_BAD_KEY_PLUGIN));
  EXPECT_EQ(only_failure("bad_key.json"),
            "implementation key 'test_good.softmax.borrowed' must start with 'test_bad_key.'");
}

TEST_F(PluginDiscovery, LibraryRefusedThroughOneManifestStillLoadsThroughAnother) {
  // "a.json" sorts first and misnames the library; the good manifest must still load it.
  dir_.write("a.json", manifest("npu", TEST_GOOD_PLUGIN));
  EXPECT_THAT(only_failure("a.json"), HasSubstr("declares backend 'npu'"));
}

class PluginDiscoveryWorldWritable : public PluginDiscovery {
 protected:
  void SetUp() override {
    PluginDiscovery::SetUp();
    const fs::path shared = dir_.path() / "shared";
    fs::create_directory(shared);
    ASSERT_EQ(::chmod(shared.c_str(), 0777), 0);
    library_ = (shared / "libtwin.so").string();
    fs::copy_file(TEST_GOOD_TWIN_PLUGIN, library_);
  }
  std::string library_;
};

TEST_F(PluginDiscoveryWorldWritable, DirectoryIsRefused) {
  dir_.write("shared.json", manifest("test_good", "shared/libtwin.so"));
  EXPECT_EQ(only_failure("shared.json"), "refused: " + library_ + " lies in " + dir_ / "shared" +
                                             ", a directory every user can write to; move it, or pass "
                                             "--allow-insecure-plugins if you trust it");
}

TEST_F(PluginDiscoveryWorldWritable, AcceptedWhenAllowed) {
  fs::remove(good_manifest_);
  dir_.write("shared.json", manifest("test_good", "shared/libtwin.so"));
  discover({.allow_insecure_plugins = true});
  EXPECT_THAT(registry_.unavailable(), IsEmpty());
  ASSERT_NE(registry_.find("test_good"), nullptr);
  EXPECT_EQ(registry_.find("test_good")->version(), "9.9.9");
  EXPECT_EQ(registry_.find("test_good")->source().library_path, library_);
}

TEST_F(PluginDiscovery, WorldWritableFileIsRefused) {
  const std::string library = dir_ / "libtwin.so";
  fs::copy_file(TEST_GOOD_TWIN_PLUGIN, library);
  ASSERT_EQ(::chmod(library.c_str(), 0666), 0);
  dir_.write("open.json", manifest("test_good", "libtwin.so"));
  EXPECT_THAT(only_failure("open.json"), StartsWith("refused: " + library + " is writable by every user"));
}

TEST_F(PluginDiscovery, SameLibraryThroughManifestsSymlinkAndPluginLoadsOnce) {
  const std::string link = dir_ / "link.so";
  fs::create_symlink(TEST_GOOD_PLUGIN, link);
  dir_.write("again.json", manifest("test_good", TEST_GOOD_PLUGIN));
  dir_.write("via_link.json", manifest("test_good", "link.so"));
  discover({.plugin_libraries = {TEST_GOOD_PLUGIN, link}});
  EXPECT_THAT(registry_.unavailable(), IsEmpty());
  ASSERT_EQ(registry_.backends().size(), 1u);
  EXPECT_EQ(registry_.backends()[0]->source().manifest_path, dir_ / "again.json");  // first in name order
}

TEST_F(PluginDiscovery, PluginLibraryWithoutManifest) {
  fs::remove(good_manifest_);
  discover({.plugin_libraries = {TEST_GOOD_PLUGIN}});
  ASSERT_EQ(registry_.backends().size(), 1u);
  const BackendSource& s = registry_.backends()[0]->source();
  EXPECT_EQ(s.manifest_path, "");
  EXPECT_EQ(s.declared_name, "");
  EXPECT_EQ(s.describe(), fs::canonical(TEST_GOOD_PLUGIN).string());
}

TEST_F(PluginDiscovery, NonexistentDirectoryIsReportedAndOthersGoOn) {
  const std::string absent = dir_ / "absent";
  discover({.plugin_dirs = {absent}});
  ASSERT_EQ(registry_.unavailable().size(), 1u);
  EXPECT_EQ(registry_.unavailable()[0].source, absent);
  EXPECT_EQ(registry_.unavailable()[0].reason, "plugin directory does not exist or is not a directory");
  EXPECT_NE(registry_.find("test_good"), nullptr);
}

TEST(PluginSearchPath, SplitsOnColonsAndDropsEmptyEntries) {
  EXPECT_THAT(split_search_path("/a:/b/c"), ElementsAre("/a", "/b/c"));
  EXPECT_THAT(split_search_path(":/a::/b:"), ElementsAre("/a", "/b"));
  EXPECT_THAT(split_search_path(""), IsEmpty());
  EXPECT_THAT(split_search_path(":::"), IsEmpty());
}

// Sets OPCERT_PLUGIN_PATH (or unsets it for nullopt) for one scope, restoring the old value.
class ScopedPluginPath {
 public:
  explicit ScopedPluginPath(const std::optional<std::string>& value) {
    if (const char* old = std::getenv("OPCERT_PLUGIN_PATH")) old_ = old;
    value ? ::setenv("OPCERT_PLUGIN_PATH", value->c_str(), 1) : ::unsetenv("OPCERT_PLUGIN_PATH");
  }
  ~ScopedPluginPath() { old_ ? ::setenv("OPCERT_PLUGIN_PATH", old_->c_str(), 1) : ::unsetenv("OPCERT_PLUGIN_PATH"); }

 private:
  std::optional<std::string> old_;
};

// ABI 1.3: a library of several backends lists them, and each is initialised by name.
std::vector<std::string> unavailable_lines(const Registry& registry) {
  std::vector<std::string> lines;
  for (const auto& u : registry.unavailable()) lines.push_back(u.source + ": " + u.reason);
  return lines;
}

TEST(LibraryOfSeveralBackends, EachListedBackendIsInitialisedByNameWithItsOrigin) {
  Registry registry;
  DiscoveryOptions options;
  options.plugin_libraries = {TEST_FAMILY_PLUGIN};
  discover_plugins(registry, options);
  ASSERT_EQ(registry.backends().size(), 2u) << ::testing::PrintToString(unavailable_lines(registry));
  const BackendHandle* a = registry.find("family_a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->source().backend_name, "family_a");
  EXPECT_EQ(a->source().entry, "entry-a");
  EXPECT_EQ(a->source().describe(), "family entry a");
  EXPECT_EQ(a->source().sha256, sha256_file_hex(fs::canonical(TEST_FAMILY_PLUGIN).string()));
  EXPECT_EQ(a->package().name, "family-pkg");
  EXPECT_EQ(a->package().version, "2.0.1");
  EXPECT_EQ(a->package().sha256, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  EXPECT_EQ(a->implementations().at(0).key, "family_a.softmax.ref");
  EXPECT_NE(registry.find("family_b"), nullptr);
  EXPECT_THAT(unavailable_lines(registry),
              ElementsAre("family entry broken: needs a device this machine lacks",
                          "family library: a note about the library"));
}

TEST(LibraryOfSeveralBackends, OnlyTheSelectedAreInitialisedAsAWorkerAsks) {
  Registry registry;
  DiscoveryOptions options;
  options.plugin_libraries = {TEST_FAMILY_PLUGIN};
  options.only = "family_b";
  discover_plugins(registry, options);
  ASSERT_EQ(registry.backends().size(), 1u);
  EXPECT_EQ(registry.backends()[0]->name(), "family_b");
  EXPECT_EQ(registry.backends()[0]->package().name, "family-pkg");
}

TEST(LibraryOfSeveralBackends, AHostOfOneBackendPerLibraryGetsNoPackage) {
  Registry registry;
  DiscoveryOptions options;
  options.plugin_libraries = {TEST_GOOD_PLUGIN};
  discover_plugins(registry, options);
  ASSERT_NE(registry.find("test_good"), nullptr);
  EXPECT_EQ(registry.find("test_good")->package().name, "");
  EXPECT_EQ(registry.find("test_good")->source().origin, "");
}

TEST(LibraryOfSeveralBackends, AManifestNamingAPythonModuleNeedsTheBridge) {
  opcert::testing::TempDir dir;
  const std::string path = dir.write(
      "py.json",
      "{\"file_format_version\": \"1.1.0\", \"backend\": {\"name\": \"py\", \"python\": \"m:b\", \"abi_version\": "
      "\"1.3\"}}");
  Registry registry;
  DiscoveryOptions options;
  options.plugin_dirs = {dir.path().string()};
  discover_plugins(registry, options);
  EXPECT_THAT(unavailable_lines(registry),
              ElementsAre(path + ": names a Python backend, but this opcert was built without the Python bridge "
                                 "(docs/PYTHON.md: OPCERT_WITH_PYTHON)"));
}

// A guard that records what discovery asks and refuses one step (plugin_guard.h).
class RecordingGuard : public PluginGuard {
 public:
  explicit RecordingGuard(std::string refused = "") : refused_(std::move(refused)) {}
  std::optional<StepRefusal> before(const std::string& step) override {
    events.push_back("before " + step);
    if (step != refused_) return std::nullopt;
    return StepRefusal{"it crashed the probe", {"last line", "very last line"}};
  }
  void after(const std::string& step) override { events.push_back("after " + step); }
  std::vector<std::string> events;

 private:
  std::string refused_;
};

// Discovers `libraries` (as --plugin) into `registry`, asking `guard`.
void discover_guarded(Registry& registry, PluginGuard& guard, const std::vector<std::string>& libraries) {
  DiscoveryOptions options;
  options.plugin_libraries = libraries;
  options.guard = &guard;
  discover_plugins(registry, options);
}

TEST(PluginGuardedDiscovery, EveryStepThatRunsPluginCodeIsAskedBeforeAndToldAfter) {
  const std::string good = fs::canonical(TEST_GOOD_PLUGIN).string(), family = fs::canonical(TEST_FAMILY_PLUGIN).string();
  RecordingGuard guard;
  Registry registry;
  discover_guarded(registry, guard, {TEST_GOOD_PLUGIN, TEST_FAMILY_PLUGIN});
  EXPECT_NE(registry.find("family_a"), nullptr);
  EXPECT_THAT(guard.events,
              ElementsAre("before load " + good, "after load " + good, "before init " + good, "after init " + good,
                          "before load " + family, "after load " + family, "before list " + family,
                          "after list " + family, "before init " + family + " family_a",
                          "after init " + family + " family_a", "before init " + family + " family_b",
                          "after init " + family + " family_b"));
}

// The library refused segfaults in a static constructor: had it been opened, this test would die.
TEST(PluginGuardedDiscovery, ARefusedLoadIsListedWithTheGuardsReasonAndTheLibraryIsNeverOpened) {
  const std::string dying = fs::canonical(TEST_DIES_AT_DLOPEN_PLUGIN).string();
  RecordingGuard guard("load " + dying);
  Registry registry;
  discover_guarded(registry, guard, {TEST_DIES_AT_DLOPEN_PLUGIN, TEST_FAMILY_PLUGIN});
  EXPECT_NE(registry.find("family_b"), nullptr) << "the other plugins go on";
  EXPECT_EQ(dlopen(dying.c_str(), RTLD_NOW | RTLD_NOLOAD), nullptr) << "a refused library must not be in the process";
  EXPECT_THAT(guard.events, ::testing::Not(::testing::Contains("after load " + dying)));
  ASSERT_FALSE(registry.unavailable().empty());
  const UnavailableBackend& u = registry.unavailable()[0];
  EXPECT_EQ(u.source, TEST_DIES_AT_DLOPEN_PLUGIN);
  EXPECT_EQ(u.reason, "it crashed the probe");
  EXPECT_EQ(u.refused_step, "load " + dying);
  EXPECT_THAT(u.stderr_tail, ElementsAre("last line", "very last line"));
}

TEST(PluginGuardedDiscovery, AWorkerRefusesTheStepsItsRunnersProbeRefused) {
  const std::string family = fs::canonical(TEST_FAMILY_PLUGIN).string();
  RefuseSteps guard({"init " + family + " family_a"});
  Registry registry;
  discover_guarded(registry, guard, {TEST_FAMILY_PLUGIN});
  EXPECT_EQ(registry.find("family_a"), nullptr);
  EXPECT_NE(registry.find("family_b"), nullptr);
  EXPECT_THAT(unavailable_lines(registry),
              ::testing::Contains("family entry a: not loaded: it ended the runner's plugin probe (`opcert list` says how)"));
}

TEST(PluginSearchPath, EnvironmentDirectoriesComeBeforeExtraOnes) {
  {
    ScopedPluginPath env("/env/a::/env/b");
    EXPECT_THAT(plugin_dirs_from_environment({"/cli"}), ElementsAre("/env/a", "/env/b", "/cli"));
  }
  {
    ScopedPluginPath env(std::nullopt);
    EXPECT_THAT(plugin_dirs_from_environment({"/cli"}), ElementsAre("/cli"));
    EXPECT_THAT(plugin_dirs_from_environment({}), IsEmpty());
  }
}

}  // namespace
}  // namespace opcert
