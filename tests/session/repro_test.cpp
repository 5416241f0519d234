#include <gtest/gtest.h>

#include <regex>

#include "session/job/repro.h"
#include "session/job/run_paths.h"

namespace opcert {
namespace {

TEST(Repro, ShellQuoting) {
  EXPECT_EQ(shell_quote("smoke"), "smoke");
  EXPECT_EQ(shell_quote("/a/b-c_d.json"), "/a/b-c_d.json");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
}

TEST(Repro, RegexEscapeMatchesTheIdLiterally) {
  EXPECT_EQ(regex_escape("gemm.bf16.m64"), "gemm\\.bf16\\.m64");
  const std::string id = "a.b+c(d)[e]{f}|g^h$i*j?k\\l";
  const std::regex re("^" + regex_escape(id) + "$");
  EXPECT_TRUE(std::regex_search(id, re));
  EXPECT_FALSE(std::regex_search(std::string("aXb+c(d)[e]{f}|g^h$i*j?k\\l"), re)) << "'.' must not match any char";
}

TEST(Repro, BuiltinBackend) {
  BackendSource builtin;
  builtin.builtin_label = "cpu";
  ReproContext ctx{"smoke", 7, {}};
  EXPECT_EQ(repro_line("cpu", builtin, "cpu.gemm.blocked", "gemm.bf16.m64n48k80.nk", ctx),
            "opcert run --backend cpu --impl cpu.gemm.blocked --suite smoke --filter '^gemm\\.bf16\\.m64n48k80\\.nk$' "
            "--seed 7");
}

TEST(Repro, AResultOfAChosenDeviceRerunsOnThatDevice) {
  BackendSource builtin;
  builtin.builtin_label = "cpu";
  ReproContext ctx{"smoke", 1, {}};
  EXPECT_EQ(repro_line("cpu", builtin, "cpu.softmax.rowwise", "s.1", ctx, 2),
            "opcert run --backend cpu --impl cpu.softmax.rowwise --suite smoke --filter '^s\\.1$' --seed 1 --devices 2");
}

TEST(Repro, PluginByLibraryOrManifestAndExtraOptions) {
  BackendSource lib;
  lib.kind = BackendSource::Kind::kPlugin;
  lib.library_path = "/opt/v/libvendor.so";
  ReproContext ctx{"/tmp/my suite.json", 1, {"--platform", "h100-sxm"}};
  EXPECT_EQ(repro_line("vendor", lib, "vendor.softmax.x", "s.1", ctx),
            "opcert run --backend vendor --impl vendor.softmax.x --suite '/tmp/my suite.json' --filter '^s\\.1$' "
            "--seed 1 --plugin /opt/v/libvendor.so --platform h100-sxm");

  BackendSource manifest = lib;
  manifest.manifest_path = "/etc/opcert/plugins/vendor.json";
  EXPECT_EQ(plugin_options_for(manifest), (std::vector<std::string>{"--plugin-dir", "/etc/opcert/plugins"}));
  EXPECT_TRUE(plugin_options_for(BackendSource{}).empty());
}

TEST(RunPaths, TimestampsAndNames) {
  using namespace std::chrono;
  const auto t = sys_days{year{2026} / 11 / 23} + hours{10} + minutes{15} + seconds{7};
  EXPECT_EQ(iso_utc(t), "2026-11-23T10:15:07Z");
  EXPECT_EQ(default_out_dir(t), std::filesystem::path("out/20261123T101507Z"));
  EXPECT_EQ(file_safe("cpu"), "cpu");
  EXPECT_EQ(file_safe("../evil/x y"), "_.._evil_x_y");
}

TEST(RunPaths, PrivateTempDirsAreNewFoldersOfTheirOwn) {
  // Two processes (here two calls) asking with one prefix at once must never share a folder.
  const std::filesystem::path a = make_private_temp_dir("opcert-test-private-");
  const std::filesystem::path b = make_private_temp_dir("opcert-test-private-");
  EXPECT_NE(a, b);
  EXPECT_TRUE(std::filesystem::is_directory(a));
  EXPECT_TRUE(std::filesystem::is_directory(b));
  EXPECT_EQ(a.parent_path(), std::filesystem::temp_directory_path());
  EXPECT_EQ(a.filename().string().rfind("opcert-test-private-", 0), 0u) << a;
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
}

}  // namespace
}  // namespace opcert
