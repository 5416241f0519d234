// The safetensors reader and writer: what is written reads back byte for byte, the data starts
// 8-byte aligned, and every malformed file is refused with its name and what is wrong.
#include "golden/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace opcert {
namespace {

std::vector<std::byte> bytes_of(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

// A file with `header` as its JSON header and `data` after it.
std::vector<std::byte> raw_file(const std::string& header, std::size_t data) {
  std::vector<std::byte> out(8 + header.size() + data);
  const uint64_t n = header.size();
  std::memcpy(out.data(), &n, 8);
  std::memcpy(out.data() + 8, header.data(), header.size());
  return out;
}

std::string parse_error(std::vector<std::byte> file) {
  try {
    SafetensorsFile::parse(std::move(file), "x.safetensors");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(Safetensors, WhatIsWrittenReadsBackWithItsMetadata) {
  SafetensorsWriter w;
  w.set_metadata("case", "gemm.bf16");
  const std::vector<double> values{1.5, -2.25, 1e300, 0.0};
  const std::vector<int64_t> indices{0, 7, 99};
  w.add_f64("reference.c.values", values);
  w.add({"input.a", "BF16", {2, 3}, bytes_of({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})});
  w.add_i64("reference.c.indices", indices);
  w.add({"input.scale", "F32", {}, bytes_of({0, 0, 128, 63})});  // a scalar: shape [], one element
  w.add({"input.empty", "F8_E4M3", {0, 4}, {}});
  const std::vector<std::byte> file = w.serialize();
  uint64_t header = 0;
  std::memcpy(&header, file.data(), 8);
  EXPECT_EQ((8 + header) % 8, 0u) << "the data starts 8-byte aligned";

  const SafetensorsFile f = SafetensorsFile::parse(file, "t");
  EXPECT_EQ(f.metadata_at("case"), "gemm.bf16");
  EXPECT_EQ(f.f64("reference.c.values"), values);
  EXPECT_EQ(f.i64("reference.c.indices"), indices);
  const auto a = f.at("input.a");
  EXPECT_EQ(a.dtype, "BF16");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::vector<std::byte>(a.bytes.begin(), a.bytes.end()), bytes_of({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_TRUE(f.at("input.scale").shape.empty());
  EXPECT_TRUE(f.at("input.empty").bytes.empty());
  EXPECT_EQ(f.names().size(), 5u);
  EXPECT_THROW(f.f64("input.a"), std::runtime_error) << "a BF16 tensor is not read as F64";
  EXPECT_THROW(f.at("input.b"), std::runtime_error);
  EXPECT_THROW(f.metadata_at("seed"), std::runtime_error);
}

TEST(Safetensors, TheWriterRefusesWhatNoReaderCouldRead) {
  SafetensorsWriter w;
  EXPECT_THROW(w.add({"a", "F32", {2}, bytes_of({1, 2, 3})}), std::invalid_argument) << "3 bytes for 2 floats";
  EXPECT_THROW(w.add({"a", "Q4", {1}, bytes_of({1})}), std::invalid_argument) << "an unknown dtype";
  EXPECT_THROW(w.add({"__metadata__", "U8", {1}, bytes_of({1})}), std::invalid_argument);
  w.add({"a", "I8", {1}, bytes_of({1})});
  EXPECT_THROW(w.add({"a", "I8", {1}, bytes_of({1})}), std::invalid_argument) << "a name twice";
}

TEST(Safetensors, EveryMalformedFileIsRefusedSayingWhy) {
  EXPECT_NE(parse_error(bytes_of({1, 0, 0})).find("shorter than its 8-byte header length"), std::string::npos);
  auto too_long = raw_file("{}", 0);
  too_long[0] = std::byte{200};
  EXPECT_NE(parse_error(too_long).find("exceeds the file"), std::string::npos);
  EXPECT_NE(parse_error(raw_file("[1]", 0)).find("not a JSON object"), std::string::npos);
  EXPECT_NE(parse_error(raw_file("{\"a\": ", 0)).find("header"), std::string::npos);
  EXPECT_NE(parse_error(raw_file(R"({"a":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}})", 1)).find("unknown dtype 'Q4'"),
            std::string::npos);
  EXPECT_NE(parse_error(raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4)).find("4 bytes for shape"),
            std::string::npos);
  EXPECT_NE(parse_error(raw_file(R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,0]}})", 0))
                .find("overflows"),
            std::string::npos)
      << "a shape whose size wraps to 0 is not an empty tensor";
  EXPECT_NE(parse_error(raw_file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1))
                .find("duplicate"),
            std::string::npos);
  EXPECT_NE(parse_error(raw_file(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", 1)).find("outside"),
            std::string::npos);
  EXPECT_NE(parse_error(raw_file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})", 2)).find("gap or overlap at data offset 0"),
            std::string::npos);
  EXPECT_NE(parse_error(raw_file(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})", 3))
                .find("gap or overlap"),
            std::string::npos);
  EXPECT_NE(parse_error(raw_file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 2)).find("1 bytes of data follow"),
            std::string::npos);
  EXPECT_NE(parse_error(raw_file(R"({"__metadata__":{"k":1}})", 0)).find("__metadata__.k is not a string"), std::string::npos);
  EXPECT_NE(parse_error(raw_file("{\"a\":{\"dtype\":\"U8\"}}", 0)).find("tensor 'a'"), std::string::npos);
  EXPECT_NE(parse_error(bytes_of({1, 0, 0})).find("x.safetensors"), std::string::npos) << "the message names the file";
}

TEST(Safetensors, DtypeNamesAreTheFormats) {
  EXPECT_EQ(safetensors_dtype(OPCERT_DTYPE_BF16), "BF16");
  EXPECT_EQ(safetensors_dtype(OPCERT_DTYPE_F8_E4M3FN), "F8_E4M3");
  EXPECT_EQ(safetensors_dtype(OPCERT_DTYPE_F8_E5M2), "F8_E5M2");
  EXPECT_EQ(safetensors_dtype(OPCERT_DTYPE_I32), "I32");
  EXPECT_THROW(safetensors_dtype(OPCERT_DTYPE_INVALID), std::invalid_argument);
  EXPECT_EQ(safetensors_element_bytes("I64"), 8u);
  EXPECT_FALSE(safetensors_element_bytes("F4").has_value());
}

}  // namespace
}  // namespace opcert
