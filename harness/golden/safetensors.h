// The safetensors file format (huggingface/safetensors): an 8-byte little-endian header length,
// a JSON header naming each tensor's dtype, shape and byte range, then the bytes. Golden sets are
// written in it so that any safetensors reader (Python, Rust, C++) opens them without opcert.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <opcert/backend_abi.h>

namespace opcert {

/// The format's dtype name of an opcert dtype ("BF16", "F8_E4M3", ...).
std::string_view safetensors_dtype(opcert_dtype dtype);
/// Bytes per element of a dtype of the format (F64 ... BOOL); nullopt for a name it does not have.
std::optional<std::size_t> safetensors_element_bytes(std::string_view dtype);

/// Writes `bytes` to `path` through a temporary file renamed into place, so that a reader never
/// sees half a file; throws std::runtime_error naming the path when it cannot.
void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes);

/// Every byte of the file at `path`; throws std::runtime_error naming it when it cannot be read.
std::vector<std::byte> read_file_bytes(const std::filesystem::path& path);

/// One tensor of a file: its name, the format's dtype name, shape and bytes.
struct SafetensorsTensor {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<std::byte> bytes;
};

/// Builds a file tensor by tensor and writes it atomically (a temporary file renamed into place).
class SafetensorsWriter {
 public:
  /// Adds a tensor; its bytes must be the product of the shape times the dtype's size. Throws
  /// std::invalid_argument for a repeated name, an unknown dtype or a size that does not match.
  void add(SafetensorsTensor tensor);
  void add_f64(std::string name, std::span<const double> values);
  /// F64 of `shape` (its element count must be values.size()).
  void add_f64(std::string name, std::vector<int64_t> shape, std::span<const double> values);
  void add_i64(std::string name, std::span<const int64_t> values);
  /// The header's "__metadata__": free-form strings.
  void set_metadata(std::string key, std::string value) { metadata_[std::move(key)] = std::move(value); }

  /// The file's bytes: header, padded so the data starts 8-byte aligned, then the tensors in the
  /// order they were added.
  std::vector<std::byte> serialize() const;
  /// Writes serialize() to `path`; throws std::runtime_error naming the path when it cannot.
  void write(const std::filesystem::path& path) const;

 private:
  std::vector<SafetensorsTensor> tensors_;
  std::map<std::string, std::string> metadata_;
};

/// A file read and validated: the header parses, every range lies in the data and the ranges
/// tile it without gaps or overlaps, each tensor's size matches its dtype and shape.
class SafetensorsFile {
 public:
  /// Throws std::runtime_error naming `source` and what is wrong.
  static SafetensorsFile parse(std::vector<std::byte> bytes, const std::string& source);
  static SafetensorsFile read(const std::filesystem::path& path);

  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  /// Metadata value `key`; throws std::runtime_error naming the file when it is absent.
  const std::string& metadata_at(const std::string& key) const;
  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  std::vector<std::string> names() const;

  struct View {
    std::string dtype;
    std::vector<int64_t> shape;
    std::span<const std::byte> bytes;
  };
  /// Tensor `name`; throws std::runtime_error naming the file when it is absent.
  View at(const std::string& name) const;
  /// Tensor `name` as doubles (it must be F64) or int64s (I64); throws naming the file otherwise.
  std::vector<double> f64(const std::string& name) const;
  std::vector<int64_t> i64(const std::string& name) const;

 private:
  struct Entry {
    std::string dtype;
    std::vector<int64_t> shape;
    std::size_t begin = 0, end = 0;
  };
  std::string source_;
  std::vector<std::byte> bytes_;
  std::size_t data_start_ = 0;
  std::map<std::string, Entry> tensors_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace opcert
