#include "reference/reference_support.h"

#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "model/dtype.h"
#include "model/scalar_codec.h"

namespace opcert::reference_detail {
namespace {

// Every code of a narrow dtype decoded once by scalar_codec: the single source of truth.
template <std::size_t N>
std::array<double, N> decode_table(opcert_dtype dtype) {
  std::array<double, N> table{};
  for (std::size_t code = 0; code < N; ++code) {
    if constexpr (N == 256) {
      const auto byte = static_cast<uint8_t>(code);
      table[code] = load_from(dtype, &byte);
    } else {
      const auto half = static_cast<uint16_t>(code);
      table[code] = load_from(dtype, &half);
    }
  }
  return table;
}

const double* table_of(opcert_dtype dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F16: {
      static const auto t = decode_table<65536>(OPCERT_DTYPE_F16);
      return t.data();
    }
    case OPCERT_DTYPE_BF16: {
      static const auto t = decode_table<65536>(OPCERT_DTYPE_BF16);
      return t.data();
    }
    case OPCERT_DTYPE_F8_E4M3FN: {
      static const auto t = decode_table<256>(OPCERT_DTYPE_F8_E4M3FN);
      return t.data();
    }
    case OPCERT_DTYPE_F8_E5M2: {
      static const auto t = decode_table<256>(OPCERT_DTYPE_F8_E5M2);
      return t.data();
    }
    case OPCERT_DTYPE_I8: {
      static const auto t = decode_table<256>(OPCERT_DTYPE_I8);
      return t.data();
    }
    default: return nullptr;
  }
}

}  // namespace

Decoder::Decoder(const HostTensor& tensor)
    : data_(tensor.bytes.data()), dtype_(tensor.spec.dtype), table_(table_of(tensor.spec.dtype)) {
  if (dtype_bytes(dtype_) == 0) throw std::invalid_argument("reference: operand '" + tensor.spec.name + "' has an invalid dtype");
  if (tensor.bytes.size() != tensor.spec.bytes())
    throw std::invalid_argument(fmt::format("reference: operand '{}' holds {} bytes, its spec says {}", tensor.spec.name,
                                            tensor.bytes.size(), tensor.spec.bytes()));
}

double Decoder::operator()(int64_t i) const {
  const auto at = static_cast<std::size_t>(i);
  if (table_ != nullptr) {
    if (dtype_bytes(dtype_) == 1) return table_[static_cast<uint8_t>(data_[at])];
    uint16_t code;
    std::memcpy(&code, data_ + 2 * at, 2);
    return table_[code];
  }
  switch (dtype_) {
    case OPCERT_DTYPE_F32: {
      float f;
      std::memcpy(&f, data_ + 4 * at, 4);
      return f;
    }
    case OPCERT_DTYPE_I32: {
      int32_t v;
      std::memcpy(&v, data_ + 4 * at, 4);
      return v;
    }
    default: return load_from(dtype_, data_ + 8 * at);  // fp64
  }
}

void Decoder::copy(int64_t offset, int64_t stride, int64_t count, double* dst) const {
  // The dtype is dispatched once per run, not per element: this is the hot loop of sampling.
  const std::size_t width = dtype_bytes(dtype_);
  const std::byte* src = data_ + static_cast<std::size_t>(offset) * width;
  const auto step = static_cast<std::ptrdiff_t>(stride) * static_cast<std::ptrdiff_t>(width);
  if (table_ != nullptr && width == 1) {
    for (int64_t j = 0; j < count; ++j, src += step) dst[j] = table_[static_cast<uint8_t>(*src)];
  } else if (table_ != nullptr) {
    for (int64_t j = 0; j < count; ++j, src += step) {
      uint16_t code;
      std::memcpy(&code, src, 2);
      dst[j] = table_[code];
    }
  } else if (dtype_ == OPCERT_DTYPE_F32) {
    for (int64_t j = 0; j < count; ++j, src += step) {
      float f;
      std::memcpy(&f, src, 4);
      dst[j] = f;
    }
  } else {
    for (int64_t j = 0; j < count; ++j) dst[j] = (*this)(offset + j * stride);
  }
}

namespace {

constexpr int64_t kDecodeGrain = int64_t{1} << 15;  // elements per task when decoding in parallel

}  // namespace

at::Tensor to_torch(const HostTensor& tensor) {
  const Decoder decode(tensor);
  at::Tensor t = at::empty(tensor.spec.shape, at::kDouble);
  double* dst = t.data_ptr<double>();
  at::parallel_for(0, tensor.spec.numel(), kDecodeGrain,
                   [&](int64_t begin, int64_t end) { decode.copy(begin, 1, end - begin, dst + begin); });
  return t;
}

at::Tensor gather_rows(const HostTensor& tensor, int64_t row_len, std::span<const int64_t> rows) {
  const Decoder decode(tensor);
  const auto n = static_cast<int64_t>(rows.size());
  at::Tensor t = at::empty({n, row_len}, at::kDouble);
  double* dst = t.data_ptr<double>();
  at::parallel_for(0, n, std::max<int64_t>(1, kDecodeGrain / std::max<int64_t>(row_len, 1)), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      decode.copy(rows[static_cast<std::size_t>(r)] * row_len, 1, row_len, dst + r * row_len);
  });
  return t;
}

const HostTensor& require_input(std::span<const HostTensor> inputs, const std::string& op, const std::string& name) {
  const HostTensor* t = find_tensor(inputs, name);
  if (t == nullptr) throw std::invalid_argument(fmt::format("{}: required input '{}' is missing", op, name));
  return *t;
}

const HostTensor* optional_input(std::span<const HostTensor> inputs, const std::string& name) {
  return find_tensor(inputs, name);
}

void require_shape(const HostTensor& tensor, const std::string& op, const std::vector<int64_t>& shape) {
  if (tensor.spec.shape != shape)
    throw std::invalid_argument(fmt::format("{}: operand '{}' has shape {}, expected {}", op, tensor.spec.name,
                                            shape_text(tensor.spec.shape), shape_text(shape)));
}

void require_rank(const HostTensor& tensor, const std::string& op, std::size_t rank) {
  if (tensor.spec.shape.size() != rank)
    throw std::invalid_argument(
        fmt::format("{}: operand '{}' has shape {}, expected rank {}", op, tensor.spec.name, shape_text(tensor.spec.shape), rank));
}

const TensorSpec& require_output(const Case& c, const std::string& name) {
  const TensorSpec* s = c.find_output(name);
  if (s == nullptr) throw std::invalid_argument(fmt::format("{}: output '{}' is missing from the case", c.op, name));
  return *s;
}

const std::vector<int64_t>* sampled(const SamplePlan& plan, const std::string& output, int64_t numel) {
  const auto it = plan.find(output);
  if (it == plan.end()) return nullptr;
  const auto& idx = it->second;
  if (!std::is_sorted(idx.begin(), idx.end()))
    throw std::invalid_argument("reference: sample indices of '" + output + "' are not sorted");
  if (!idx.empty() && (idx.front() < 0 || idx.back() >= numel))
    throw std::invalid_argument(fmt::format("reference: a sample index of '{}' lies outside [0, {})", output, numel));
  return &idx;
}

std::vector<int64_t> rows_needed(const std::vector<int64_t>* sample, int64_t row_len, int64_t row_count) {
  std::vector<int64_t> rows;
  if (sample == nullptr) {
    rows.resize(static_cast<std::size_t>(row_count));
    for (int64_t r = 0; r < row_count; ++r) rows[static_cast<std::size_t>(r)] = r;
    return rows;
  }
  for (int64_t i : *sample)
    if (rows.empty() || rows.back() != i / row_len) rows.push_back(i / row_len);
  return rows;
}

std::vector<int64_t> merge_rows(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

RowCollector::RowCollector(std::vector<int64_t> rows, int64_t row_len, bool with_condition,
                           const std::vector<int64_t>* sample)
    : rows_(std::move(rows)), row_len_(row_len), with_condition_(with_condition), sample_(sample) {
  std::size_t n = rows_.size() * static_cast<std::size_t>(row_len_);  // every row whole
  if (sample_ != nullptr) {
    // Both sorted: each row's sampled elements are consecutive in the sample.
    const std::vector<int64_t>& kept = *sample_;
    first_kept_.assign(rows_.size() + 1, 0);
    std::size_t k = 0;
    for (std::size_t p = 0; p < rows_.size(); ++p) {
      first_kept_[p] = k;
      while (row_len_ > 0 && k < kept.size() && kept[k] / row_len_ == rows_[p]) ++k;
    }
    first_kept_[rows_.size()] = k;
    if (k != kept.size()) throw std::logic_error("reference: a sampled row is not among the rows collected");
    n = kept.size();
  }
  filled_.assign(rows_.size(), 0);
  values_.assign(n, 0.0);
  magnitude_.assign(n, 0.0);
  if (with_condition_) condition_.assign(n, 0.0);
}

int64_t RowCollector::position(int64_t row) const {
  const auto it = std::lower_bound(rows_.begin(), rows_.end(), row);
  return (it == rows_.end() || *it != row) ? -1 : static_cast<int64_t>(it - rows_.begin());
}

void RowCollector::put(std::span<const int64_t> positions, const RowBlock& block) {
  const auto store = [&](const at::Tensor& tensor, std::vector<double>& dst) {
    const at::Tensor src = tensor.to(at::kDouble).contiguous();
    const double* p = src.data_ptr<double>();
    for (std::size_t r = 0; r < positions.size(); ++r) {
      const double* row = p + static_cast<int64_t>(r) * row_len_;
      const auto at = static_cast<std::size_t>(positions[r]);
      if (sample_ == nullptr) {
        if (row_len_ != 0) std::memcpy(dst.data() + at * row_len_, row, static_cast<std::size_t>(row_len_) * sizeof(double));
        continue;
      }
      for (std::size_t k = first_kept_[at]; k < first_kept_[at + 1]; ++k) dst[k] = row[(*sample_)[k] % row_len_];
    }
  };
  store(block.values, values_);
  store(block.magnitude, magnitude_);
  if (with_condition_) store(block.condition, condition_);
  for (const int64_t p : positions) filled_[static_cast<std::size_t>(p)] = 1;
}

void RowCollector::put_range(int64_t first, const RowBlock& block) {
  std::vector<int64_t> positions(static_cast<std::size_t>(block.values.size(0)));
  for (std::size_t r = 0; r < positions.size(); ++r) positions[r] = first + static_cast<int64_t>(r);
  put(positions, block);
}

ReferenceOutput RowCollector::emit(const std::string& name, int64_t numel) const {
  ReferenceOutput out;
  out.name = name;
  if (sample_ == nullptr) {
    if (static_cast<int64_t>(values_.size()) != numel)
      throw std::logic_error(fmt::format("reference: '{}' computed {} elements, expected {}", name, values_.size(), numel));
  } else {
    for (std::size_t p = 0; p < rows_.size(); ++p)
      if (first_kept_[p] != first_kept_[p + 1] && !filled_[p])
        throw std::logic_error("reference: a sampled row of '" + name + "' was not computed");
    out.indices = *sample_;
  }
  out.values = values_;
  out.magnitude = magnitude_;
  out.condition = condition_;
  return out;
}

at::Tensor index_tensor(std::span<const int64_t> values) {
  at::Tensor t = at::empty({static_cast<int64_t>(values.size())}, at::kLong);
  if (!values.empty()) std::memcpy(t.data_ptr<int64_t>(), values.data(), values.size() * sizeof(int64_t));
  return t;
}

void round_in_place(at::Tensor& t, opcert_dtype dtype) {
  t = t.contiguous();
  double* p = t.data_ptr<double>();
  // Element by element: the same bytes for any thread count.
  at::parallel_for(0, t.numel(), kDecodeGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) p[i] = round_to(dtype, p[i]);
  });
}

std::vector<int64_t> integer_values(const HostTensor& tensor) {
  if (tensor.spec.dtype != OPCERT_DTYPE_I32 && tensor.spec.dtype != OPCERT_DTYPE_I8)
    throw std::invalid_argument("reference: operand '" + tensor.spec.name + "' must be int32");
  const Decoder decode(tensor);
  std::vector<int64_t> out(static_cast<std::size_t>(tensor.spec.numel()));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(decode(static_cast<int64_t>(i)));
  return out;
}

}  // namespace opcert::reference_detail
