#include "loader/manifest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loader/temp_dir.h"
#include "model/input_error.h"

namespace opcert {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kPath = "/opt/vendor/plugins/npu.json";

std::string manifest(const std::string& backend_fields, const std::string& format = "\"1.0.0\"") {
  return "{\"file_format_version\": " + format + ", \"backend\": {" + backend_fields + "}}";
}

std::string good_backend(const std::string& library = "libnpu.so", const std::string& abi = "\"1.0\"") {
  return "\"name\": \"npu\", \"library_path\": \"" + library + "\", \"abi_version\": " + abi;
}

// The InputError message parse_manifest throws for `text`, or a marker when it accepts it.
std::string error_of(const std::string& text, const std::string& path = kPath) {
  try {
    parse_manifest(text, path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<accepted>";
}

TEST(Manifest, GoodManifestIsRead) {
  const PluginManifest m = parse_manifest(manifest(good_backend("libnpu.so", "\"1.3\"")), kPath);
  EXPECT_EQ(m.manifest_path, kPath);
  EXPECT_EQ(m.backend_name, "npu");
  EXPECT_EQ(m.library_path, "/opt/vendor/plugins/libnpu.so");
  EXPECT_EQ(m.abi_major, 1);
  EXPECT_EQ(m.abi_minor, 3);
}

TEST(Manifest, RelativeLibraryPathResolvesAgainstTheManifestDirectory) {
  EXPECT_EQ(parse_manifest(manifest(good_backend("lib/libnpu.so")), kPath).library_path,
            "/opt/vendor/plugins/lib/libnpu.so");
  EXPECT_EQ(parse_manifest(manifest(good_backend("../lib/./libnpu.so")), kPath).library_path,
            "/opt/vendor/lib/libnpu.so");
}

TEST(Manifest, AbsoluteLibraryPathIsKept) {
  EXPECT_EQ(parse_manifest(manifest(good_backend("/usr/lib/npu/libnpu.so")), kPath).library_path,
            "/usr/lib/npu/libnpu.so");
}

TEST(Manifest, NewerFormatMinorIsAccepted) {
  EXPECT_EQ(parse_manifest(manifest(good_backend(), "\"1.7.0\""), kPath).backend_name, "npu");
}

TEST(Manifest, MalformedJsonNamesLineAndColumn) {
  // A trailing comma: the offending '}' is the third character of line 7.
  const std::string text =
      "{\n"
      "  \"file_format_version\": \"1.0.0\",\n"
      "  \"backend\": {\n"
      "    \"name\": \"npu\",\n"
      "    \"library_path\": \"libnpu.so\",\n"
      "    \"abi_version\": \"1.0\",\n"
      "  }\n"
      "}\n";
  EXPECT_THAT(error_of(text), AllOf(StartsWith(kPath + ":7:3: invalid JSON: "), HasSubstr("unexpected '}'")));
}

TEST(Manifest, MalformedJsonPointsAtTheBadCharacter) {
  EXPECT_THAT(error_of("{\n  \"a\": @\n}"), StartsWith(kPath + ":2:8: invalid JSON: "));
  EXPECT_THAT(error_of("\n\n   x"), StartsWith(kPath + ":3:4: invalid JSON: "));
}

TEST(Manifest, TruncatedJsonPointsAtTheEnd) {
  EXPECT_THAT(error_of("{\n  \"backend\": {\n"),
              AllOf(StartsWith(kPath + ":3:1: invalid JSON: "), HasSubstr("end of input")));
  EXPECT_THAT(error_of(""), StartsWith(kPath + ":1:1: invalid JSON: "));
}

TEST(Manifest, NonObjectIsRefused) {
  EXPECT_EQ(error_of("[1, 2]"), kPath + ": a plugin manifest must be a JSON object");
}

TEST(Manifest, MissingFieldsAreNamed) {
  EXPECT_EQ(error_of("{\"backend\": {}}"), kPath + ": missing field 'file_format_version'");
  EXPECT_EQ(error_of("{\"file_format_version\": \"1.0.0\"}"), kPath + ": missing field 'backend'");
  EXPECT_EQ(error_of(manifest("\"library_path\": \"l.so\", \"abi_version\": \"1.0\"")),
            kPath + ": missing field 'backend.name'");
  EXPECT_EQ(error_of(manifest("\"name\": \"npu\", \"abi_version\": \"1.0\"")),
            kPath + ": missing field 'backend.library_path'");
  EXPECT_EQ(error_of(manifest("\"name\": \"npu\", \"library_path\": \"l.so\"")),
            kPath + ": missing field 'backend.abi_version'");
}

TEST(Manifest, EmptyNameOrLibraryIsRefused) {
  EXPECT_EQ(error_of(manifest("\"name\": \"\", \"library_path\": \"l.so\", \"abi_version\": \"1.0\"")),
            kPath + ": field 'backend.name' is empty");
  EXPECT_EQ(error_of(manifest(good_backend(""))), kPath + ": field 'backend.library_path' is empty");
}

TEST(Manifest, WrongTypesNameFieldAndBothTypes) {
  EXPECT_EQ(error_of(manifest(good_backend(), "1")),
            kPath + ": field 'file_format_version' must be a string, not number");
  EXPECT_THAT(error_of("{\"file_format_version\": \"1.0.0\", \"backend\": [\"npu\"]}"),
              AllOf(StartsWith(kPath + ": field 'backend' must be a"), HasSubstr("object, not array")));
  EXPECT_EQ(error_of(manifest("\"name\": 5, \"library_path\": \"l.so\", \"abi_version\": \"1.0\"")),
            kPath + ": field 'backend.name' must be a string, not number");
  EXPECT_EQ(error_of(manifest(good_backend("libnpu.so", "1.0"))),
            kPath + ": field 'backend.abi_version' must be a string, not number");
}

TEST(Manifest, UnknownFieldsAreNamedWithTheKnownOnes) {
  EXPECT_EQ(error_of("{\"file_format_version\": \"1.0.0\", \"backend\": {}, \"comment\": \"x\"}"),
            kPath + ": unknown field 'comment' (known: file_format_version, backend)");
  EXPECT_EQ(error_of(manifest(good_backend() + ", \"libary_path\": \"typo.so\"")),
            kPath + ": unknown field 'backend.libary_path' (known: name, library_path, python, abi_version)");
}

TEST(Manifest, NewerFormatMinorMayCarryFieldsThisHostDoesNotKnow) {
  const std::string text = "{\"file_format_version\": \"1.2.0\", \"signature\": \"abc\", \"backend\": {" +
                           good_backend() + ", \"api_layers\": []}}";
  const PluginManifest m = parse_manifest(text, kPath);
  EXPECT_EQ(m.backend_name, "npu");
  EXPECT_EQ(m.library_path, "/opt/vendor/plugins/libnpu.so");
  // A newer minor does not excuse a missing required field.
  EXPECT_THAT(error_of("{\"file_format_version\": \"1.2.0\", \"backend\": {\"name\": \"npu\"}}"),
              HasSubstr("missing field 'backend.library_path'"));
}

// Format 1.1: a Python backend named by its module, served by the bridge (docs/PYTHON.md).
TEST(Manifest, PythonBackendIsNamedByItsEntryInsteadOfALibrary) {
  const PluginManifest m = parse_manifest(
      manifest("\"name\": \"my_ops\", \"python\": \"my_ops.backend:backend\", \"abi_version\": \"1.3\"", "\"1.1.0\""),
      kPath);
  EXPECT_EQ(m.backend_name, "my_ops");
  EXPECT_EQ(m.python_entry, "my_ops.backend:backend");
  EXPECT_EQ(m.library_path, "");
  EXPECT_EQ(error_of(manifest(good_backend() + ", \"python\": \"m:b\"", "\"1.1.0\"")),
            kPath + ": give 'backend.library_path' or 'backend.python', not both");
  EXPECT_EQ(error_of(manifest("\"name\": \"a\", \"python\": \"\", \"abi_version\": \"1.3\"", "\"1.1.0\"")),
            kPath + ": field 'backend.python' is empty");
  EXPECT_EQ(error_of(manifest("\"name\": \"a\", \"python\": 3, \"abi_version\": \"1.3\"", "\"1.1.0\"")),
            kPath + ": field 'backend.python' must be a string, not number");
}

TEST(Manifest, BadVersionStringsAreRefused) {
  for (const std::string bad : {"", "1", "one.zero", "1.x", "-1.0", "1.0x", "1.0.", "1.0.0.0", "1 .0", " 1.0", "+1.0",
                           "99999999999.0"}) {
    EXPECT_EQ(error_of(manifest(good_backend("l.so", "\"" + bad + "\""))),
              kPath + ": field 'backend.abi_version' must look like \"1.0\", not \"" + bad + "\"")
        << "abi_version \"" << bad << "\"";
  }
  EXPECT_EQ(error_of(manifest(good_backend(), "\"v1\"")),
            kPath + ": field 'file_format_version' must look like \"1.0\", not \"v1\"");
}

TEST(Manifest, UnsupportedFormatMajorIsRefused) {
  EXPECT_EQ(error_of(manifest(good_backend(), "\"2.0.0\"")),
            kPath + ": manifest file_format_version 2.0.0 is not supported (this opcert reads 1.x)");
}

TEST(Manifest, ReadManifestResolvesAgainstTheFilesDirectory) {
  testing::TempDir dir;
  const std::string path = dir.write("sub/npu.json", manifest(good_backend()));
  const PluginManifest m = read_manifest(path);
  EXPECT_EQ(m.manifest_path, path);
  EXPECT_EQ(m.library_path, dir / "sub/libnpu.so");
}

TEST(Manifest, UnreadableFileIsAnInputError) {
  testing::TempDir dir;
  const std::string path = dir / "absent.json";
  try {
    read_manifest(path);
    FAIL() << "read_manifest accepted a missing file";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot read manifest: No such file or directory");
  }
}

}  // namespace
}  // namespace opcert
