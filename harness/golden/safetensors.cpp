#include "golden/safetensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "model/input_error.h"
#include "model/strict_json.h"

namespace opcert {
namespace {

// The format is little-endian; so are the hosts opcert builds for, and the bytes go out as they are.
static_assert(std::endian::native == std::endian::little, "safetensors files are little-endian");

// Files with a header above this are refused, as the reference implementation does (100 MB).
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct DtypeName {
  opcert_dtype dtype;
  std::string_view name;
  std::size_t bytes;
};
constexpr DtypeName kDtypes[] = {
    {OPCERT_DTYPE_F64, "F64", 8},        {OPCERT_DTYPE_F32, "F32", 4},         {OPCERT_DTYPE_F16, "F16", 2},
    {OPCERT_DTYPE_BF16, "BF16", 2},      {OPCERT_DTYPE_F8_E4M3FN, "F8_E4M3", 1}, {OPCERT_DTYPE_F8_E5M2, "F8_E5M2", 1},
    {OPCERT_DTYPE_I8, "I8", 1},          {OPCERT_DTYPE_I32, "I32", 4},
    // The format's other dtypes: no opcert operand has them, but a valid file may.
    {OPCERT_DTYPE_INVALID, "I64", 8},    {OPCERT_DTYPE_INVALID, "U64", 8},     {OPCERT_DTYPE_INVALID, "U32", 4},
    {OPCERT_DTYPE_INVALID, "I16", 2},    {OPCERT_DTYPE_INVALID, "U16", 2},     {OPCERT_DTYPE_INVALID, "U8", 1},
    {OPCERT_DTYPE_INVALID, "BOOL", 1},
};

// The bytes of a tensor of `shape` with `element_bytes` per element; invalid_argument for a
// negative dimension or a size that does not fit in 64 bits (a crafted header must not wrap to 0).
std::size_t tensor_bytes(const std::vector<int64_t>& shape, std::size_t element_bytes) {
  std::size_t n = element_bytes;
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("negative dimension");
    if (__builtin_mul_overflow(n, static_cast<std::size_t>(d), &n)) throw std::invalid_argument("size overflows 64 bits");
  }
  return n;
}

template <class T>
std::vector<std::byte> raw_bytes(std::span<const T> values) {
  std::vector<std::byte> bytes(values.size_bytes());
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

}  // namespace

std::string_view safetensors_dtype(opcert_dtype dtype) {
  for (const auto& d : kDtypes)
    if (d.dtype == dtype && dtype != OPCERT_DTYPE_INVALID) return d.name;
  throw std::invalid_argument(fmt::format("dtype {} has no safetensors name", static_cast<int>(dtype)));
}

std::optional<std::size_t> safetensors_element_bytes(std::string_view dtype) {
  for (const auto& d : kDtypes)
    if (d.name == dtype) return d.bytes;
  return std::nullopt;
}

void SafetensorsWriter::add(SafetensorsTensor tensor) {
  const auto size = safetensors_element_bytes(tensor.dtype);
  if (!size) throw std::invalid_argument(fmt::format("tensor '{}': unknown dtype '{}'", tensor.name, tensor.dtype));
  if (tensor.name == "__metadata__") throw std::invalid_argument("a tensor may not be named __metadata__");
  if (tensor_bytes(tensor.shape, *size) != tensor.bytes.size())
    throw std::invalid_argument(fmt::format("tensor '{}': {} bytes for its shape, {} expected", tensor.name,
                                            tensor.bytes.size(), tensor_bytes(tensor.shape, *size)));
  if (std::any_of(tensors_.begin(), tensors_.end(), [&](const auto& t) { return t.name == tensor.name; }))
    throw std::invalid_argument(fmt::format("tensor '{}' added twice", tensor.name));
  tensors_.push_back(std::move(tensor));
}

void SafetensorsWriter::add_f64(std::string name, std::span<const double> values) {
  add_f64(std::move(name), {static_cast<int64_t>(values.size())}, values);
}

void SafetensorsWriter::add_f64(std::string name, std::vector<int64_t> shape, std::span<const double> values) {
  add({std::move(name), "F64", std::move(shape), raw_bytes(values)});
}

void SafetensorsWriter::add_i64(std::string name, std::span<const int64_t> values) {
  add({std::move(name), "I64", {static_cast<int64_t>(values.size())}, raw_bytes(values)});
}

std::vector<std::byte> SafetensorsWriter::serialize() const {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata_.empty()) header["__metadata__"] = metadata_;
  std::size_t offset = 0;
  for (const auto& t : tensors_) {
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  std::string text = header.dump();
  text.append((8 - (8 + text.size()) % 8) % 8, ' ');  // the data starts 8-byte aligned

  std::vector<std::byte> out(8 + text.size() + offset);
  const uint64_t length = text.size();
  std::memcpy(out.data(), &length, 8);
  std::memcpy(out.data() + 8, text.data(), text.size());
  std::byte* data = out.data() + 8 + text.size();
  for (const auto& t : tensors_) {
    if (!t.bytes.empty()) std::memcpy(data, t.bytes.data(), t.bytes.size());
    data += t.bytes.size();
  }
  return out;
}

void SafetensorsWriter::write(const std::filesystem::path& path) const { write_file_atomically(path, serialize()); }

void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  const std::filesystem::path partial = path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", partial.string()));
  }
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), ec.message()));
}

SafetensorsFile SafetensorsFile::parse(std::vector<std::byte> bytes, const std::string& source) {
  const auto bad = [&](const std::string& what) {
    return std::runtime_error(fmt::format("{}: not a valid safetensors file: {}", source, what));
  };
  if (bytes.size() < 8) throw bad("shorter than its 8-byte header length");
  uint64_t length = 0;
  std::memcpy(&length, bytes.data(), 8);
  if (length > kMaxHeaderBytes || length > bytes.size() - 8)
    throw bad(fmt::format("header length {} exceeds the file ({} bytes)", length, bytes.size()));

  SafetensorsFile f;
  f.source_ = source;
  f.data_start_ = 8 + static_cast<std::size_t>(length);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, static_cast<std::size_t>(length));
  if (text.empty() || text.front() != '{') throw bad("the header is not a JSON object");
  nlohmann::json header;
  try {
    header = parse_strict_json(text, "header");  // a duplicate key is an error, not the last one wins
  } catch (const InputError& e) {
    throw bad(e.what());
  }
  if (!header.is_object()) throw bad("the header is not a JSON object");

  const std::size_t data_bytes = bytes.size() - f.data_start_;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) throw bad("__metadata__ is not an object");
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string()) throw bad(fmt::format("__metadata__.{} is not a string", k));
        f.metadata_[k] = v.get<std::string>();
      }
      continue;
    }
    try {
      Entry e;
      e.dtype = value.at("dtype").get<std::string>();
      e.shape = value.at("shape").get<std::vector<int64_t>>();
      const auto offsets = value.at("data_offsets").get<std::vector<uint64_t>>();
      const auto size = safetensors_element_bytes(e.dtype);
      if (!size) throw bad(fmt::format("tensor '{}': unknown dtype '{}'", name, e.dtype));
      if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] > data_bytes)
        throw bad(fmt::format("tensor '{}': data_offsets outside the {} bytes of data", name, data_bytes));
      e.begin = static_cast<std::size_t>(offsets[0]);
      e.end = static_cast<std::size_t>(offsets[1]);
      if (tensor_bytes(e.shape, *size) != e.end - e.begin)
        throw bad(fmt::format("tensor '{}': {} bytes for shape {} of {}", name, e.end - e.begin, value.at("shape").dump(), e.dtype));
      ranges.emplace_back(e.begin, e.end);
      f.tensors_.emplace(name, std::move(e));
    } catch (const nlohmann::json::exception& ex) {
      throw bad(fmt::format("tensor '{}': {}", name, ex.what()));
    } catch (const std::invalid_argument& ex) {
      throw bad(fmt::format("tensor '{}': {}", name, ex.what()));
    }
  }
  std::sort(ranges.begin(), ranges.end());
  std::size_t covered = 0;
  for (const auto& [begin, end] : ranges) {
    if (begin != covered) throw bad(fmt::format("the tensors' bytes leave a gap or overlap at data offset {}", covered));
    covered = end;
  }
  if (covered != data_bytes) throw bad(fmt::format("{} bytes of data follow the last tensor", data_bytes - covered));
  f.bytes_ = std::move(bytes);
  return f;
}

std::vector<std::byte> read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  in.seekg(0, std::ios::end);
  std::vector<std::byte> bytes(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path.string()));
  return bytes;
}

SafetensorsFile SafetensorsFile::read(const std::filesystem::path& path) { return parse(read_file_bytes(path), path.string()); }

const std::string& SafetensorsFile::metadata_at(const std::string& key) const {
  const auto it = metadata_.find(key);
  if (it == metadata_.end()) throw std::runtime_error(fmt::format("{}: no metadata '{}'", source_, key));
  return it->second;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> out;
  for (const auto& [name, e] : tensors_) out.push_back(name);
  return out;
}

SafetensorsFile::View SafetensorsFile::at(const std::string& name) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) throw std::runtime_error(fmt::format("{}: no tensor '{}'", source_, name));
  const Entry& e = it->second;
  return {e.dtype, e.shape, std::span<const std::byte>(bytes_.data() + data_start_ + e.begin, e.end - e.begin)};
}

namespace {
template <class T>
std::vector<T> copy_out(const SafetensorsFile::View& v) {
  std::vector<T> out(v.bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.bytes.data(), v.bytes.size());
  return out;
}
}  // namespace

std::vector<double> SafetensorsFile::f64(const std::string& name) const {
  const View v = at(name);
  if (v.dtype != "F64") throw std::runtime_error(fmt::format("{}: tensor '{}' is {}, not F64", source_, name, v.dtype));
  return copy_out<double>(v);
}

std::vector<int64_t> SafetensorsFile::i64(const std::string& name) const {
  const View v = at(name);
  if (v.dtype != "I64") throw std::runtime_error(fmt::format("{}: tensor '{}' is {}, not I64", source_, name, v.dtype));
  return copy_out<int64_t>(v);
}

}  // namespace opcert
