// --devices: parsing, resolving against a backend's devices, and a node's share per local rank.
#include "session/planning/device_choice.h"

#include <gtest/gtest.h>

#include "model/input_error.h"

namespace opcert {
namespace {

TEST(DeviceChoice, ParsesAllAndLists) {
  EXPECT_TRUE(parse_device_choice("all").all);
  const DeviceChoice c = parse_device_choice("2,0,2");
  EXPECT_FALSE(c.all);
  EXPECT_EQ(c.indices, (std::vector<int>{0, 2})) << "sorted, duplicates dropped";
}

TEST(DeviceChoice, RefusesWhatIsNotAnIndex) {
  for (const char* bad : {"", "x", "1,", ",1", "-1", "1.5", "0,,1", "All"}) {
    try {
      parse_device_choice(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--devices"), std::string::npos) << e.what();
    }
  }
}

TEST(DeviceChoice, ResolvesAgainstTheBackendsDevices) {
  EXPECT_EQ(resolve_devices(parse_device_choice("all"), "b", 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(resolve_devices(parse_device_choice("0,2"), "b", 3), (std::vector<int>{0, 2}));
  try {
    resolve_devices(parse_device_choice("0,3"), "cpu", 2);
    ADD_FAILURE() << "device 3 of 2 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--devices: backend 'cpu' has no device 3: it has 2 (0 to 1); see `opcert list`");
  }
  EXPECT_THROW(resolve_devices(parse_device_choice("all"), "b", 0), InputError);
}

TEST(DeviceChoice, ParsesTheDeviceMode) {
  EXPECT_EQ(parse_device_mode("spread"), DeviceMode::kSpread);
  EXPECT_EQ(parse_device_mode("each"), DeviceMode::kEach);
  EXPECT_STREQ(device_mode_name(DeviceMode::kSpread), "spread");
  try {
    parse_device_mode("all");
    ADD_FAILURE() << "accepted 'all'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--device-mode 'all'"), std::string::npos) << e.what();
  }
}

TEST(DeviceChoice, LocalRanksShareANodesDevicesWithoutOverlap) {
  const std::vector<int> devices{0, 1, 2, 3, 4};
  EXPECT_EQ(node_share(devices, 0, 2), (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(node_share(devices, 1, 2), (std::vector<int>{1, 3}));
  EXPECT_EQ(node_share(devices, 0, 1), devices);
  EXPECT_TRUE(node_share({0, 1}, 2, 3).empty()) << "a rank beyond the devices takes none";
}

}  // namespace
}  // namespace opcert
