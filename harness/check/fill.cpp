#include "check/fill.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "check/philox.h"
#include "model/dtype.h"
#include "model/scalar_codec.h"

namespace opcert {
namespace {

// The value of element i before rounding into the dtype. Pure function of (rng, i), so the
// tensor is the same for any thread count.
double element(const FillSpec& f, const CounterRng& rng, int64_t i, int64_t columns) {
  switch (f.kind) {
    case FillSpec::Kind::kRandom: return f.lo + (f.hi - f.lo) * rng.uniform(static_cast<uint64_t>(i));
    case FillSpec::Kind::kExact: {
      if (f.density < 1.0 && rng.uniform(static_cast<uint64_t>(i), 1) >= f.density) return 0.0;
      const double lo = std::ceil(f.lo / f.step), span = std::floor(f.hi / f.step) - lo + 1.0;
      return f.step * (lo + std::floor(rng.uniform(static_cast<uint64_t>(i)) * span));
    }
    case FillSpec::Kind::kValues: return f.values[static_cast<std::size_t>(i)];
    case FillSpec::Kind::kRopeCos:
    case FillSpec::Kind::kRopeSin: {
      // Row p, column j of a [P, R/2] table: angle p * base^(-2j/R) = p * base^(-j/columns).
      const auto p = static_cast<double>(i / columns);
      const auto j = static_cast<double>(i % columns);
      const double angle = p * std::pow(f.base, -j / static_cast<double>(columns));
      return f.kind == FillSpec::Kind::kRopeCos ? std::cos(angle) : std::sin(angle);
    }
  }
  return 0.0;
}

}  // namespace

HostTensor generate_input(const TensorSpec& spec, uint64_t seed, std::string_view case_id) {
  HostTensor t(spec);
  const FillSpec& f = spec.fill;
  const int64_t n = spec.numel();
  if (f.kind == FillSpec::Kind::kValues && static_cast<int64_t>(f.values.size()) != n)
    throw std::invalid_argument(fmt::format("input '{}' has {} elements but {} values are given", spec.name, n,
                                            f.values.size()));
  if (!f.specials.empty() && f.special_every <= 0)
    throw std::invalid_argument(fmt::format("input '{}': specials need special_every > 0", spec.name));
  const int64_t columns = spec.shape.empty() ? 1 : std::max<int64_t>(spec.shape.back(), 1);
  const CounterRng rng(seed, case_id, spec.name);
  const std::size_t width = dtype_bytes(spec.dtype);
  std::byte* out = t.bytes.data();
  // Blocks of elements: a random fill draws a block's uniforms at once (CounterRng::uniform_block,
  // eight at a time where the CPU can), forms each value as element() does, and the block is
  // rounded into the dtype in one run (store_block).
  constexpr int64_t kBlock = 2048;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  const bool random = f.kind == FillSpec::Kind::kRandom;
#pragma omp parallel for schedule(static) if (n > 65536)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t first = b * kBlock, end = std::min(n, first + kBlock);
    double v[kBlock];
    if (random) rng.uniform_block(static_cast<uint64_t>(first), static_cast<std::size_t>(end - first), v);
    for (int64_t i = first; i < end; ++i) {
      double& value = v[i - first];
      value = random ? f.lo + (f.hi - f.lo) * value : element(f, rng, i, columns);
      if (f.special_every > 0 && !f.specials.empty() && i % f.special_every == f.special_every - 1 &&
          (f.special_span == 0 || i < f.special_span))
        value = f.specials[static_cast<std::size_t>(i / f.special_every) % f.specials.size()];
    }
    store_block(spec.dtype, v, static_cast<std::size_t>(end - first), out + static_cast<std::size_t>(first) * width);
  }
  return t;
}

}  // namespace opcert
