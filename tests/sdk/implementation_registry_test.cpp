// ImplementationRegistry (opcert/sdk/implementation_registry.h): registrations made at static
// initialisation in any order, made in the order of their families, each factory handed the
// backend's context; a tag of its own is a table of its own.
#include <gtest/gtest.h>
#include <opcert/sdk/implementation_registry.h>

#include <string>
#include <vector>

namespace opcert::sdk {
namespace {

struct RegistryTestContext {
  int factories_run = 0;
};
using TestImplementations = ImplementationRegistry<struct RegistryTestTag, RegistryTestContext>;

Implementation registry_test_implementation(const std::string& key, const std::string& op) {
  Implementation impl;
  impl.key = key;
  impl.op = op;
  return impl;
}

std::vector<Implementation> zeta_implementations(RegistryTestContext& context) {
  ++context.factories_run;
  return {registry_test_implementation("test.zeta.first", "zeta"), registry_test_implementation("test.zeta.second", "zeta")};
}

std::vector<Implementation> alpha_implementations(RegistryTestContext& context) {
  ++context.factories_run;
  return {registry_test_implementation("test.alpha.only", "alpha")};
}

}  // namespace

// Registered zeta first: made second, as families sort by name whatever order files register in.
OPCERT_REGISTER_IMPLEMENTATIONS(TestImplementations, "zeta", zeta_implementations)
OPCERT_REGISTER_IMPLEMENTATIONS(TestImplementations, "alpha", alpha_implementations)

namespace {

TEST(ImplementationRegistry, MakesEveryFamilyInTheOrderOfItsNameWithTheBackendsContext) {
  RegistryTestContext context;
  const std::vector<Implementation> all = TestImplementations::make_all(context);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].key, "test.alpha.only");
  EXPECT_EQ(all[1].key, "test.zeta.first");  // a family keeps its factory's order
  EXPECT_EQ(all[2].key, "test.zeta.second");
  EXPECT_EQ(context.factories_run, 2);
}

TEST(ImplementationRegistry, EachBackendTagHasATableOfItsOwn) {
  using OtherImplementations = ImplementationRegistry<struct OtherRegistryTestTag>;
  EXPECT_TRUE(OtherImplementations::make_all().empty());
}

}  // namespace
}  // namespace opcert::sdk
