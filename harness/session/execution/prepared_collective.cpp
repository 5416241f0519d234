#include "session/execution/prepared_collective.h"

#include <fmt/format.h>

#include <algorithm>

#include "check/collectives/rank_check.h"
#include "session/execution/early_end.h"
#include "session/execution/prepared_case.h"
#include "model/checked_size.h"
#include "model/dtype.h"

namespace opcert {

Status collective_failure_status(const std::exception& e) {
  const auto* backend_error = dynamic_cast<const BackendError*>(&e);
  return backend_error != nullptr && backend_error->code() == OPCERT_ERROR_TIMEOUT ? Status::kTimeout : Status::kError;
}

PreparedCollective::PreparedCollective(BackendHandle& backend, const std::string& impl_key, const Case& c,
                                       opcert_device device, RankPlace place)
    : backend_(&backend), impl_key_(impl_key), case_(&c), sized_(c), spec_(CollectiveSpec::of(c)), place_(place),
      device_(device) {
  sized_.inputs[0].shape = {spec_.input_elements(place.ranks)};
  sized_.outputs[0].shape = {spec_.output_elements(place.ranks)};
  call_ = std::make_unique<OpCallBuilder>(sized_, impl_key_, device_);
}

std::unique_ptr<PreparedCollective> PreparedCollective::prepare(BackendHandle& backend, const std::string& impl_key,
                                                                const Case& c, opcert_device device, RankPlace place,
                                                                CaseResult& early) {
  early = blank_result(backend.name(), impl_key, c);
  early.rank = place.rank;
  std::unique_ptr<PreparedCollective> p;
  const EarlyEnd<PreparedCollective> end(early, p);
  try {
    p.reset(new PreparedCollective(backend, impl_key, c, device, place));
  } catch (const std::exception& e) {
    return end.fail(Status::kError, fmt::format("not a collective case: {}", e.what()));
  }
  if (const std::string why = collective_unrunnable(p->spec_, place.ranks); !why.empty()) return end.skip(skip_reason::kNotRunnable, why);
  try {
    const SupportAnswer answer = backend.query(p->call_->call());
    if (!answer.supported) return end.skip(skip_reason::kDeclined, answer.reason.empty() ? "unsupported" : answer.reason);
  } catch (const std::exception& e) {
    return end.fail(Status::kError, fmt::format("query_op failed: {}", e.what()));
  }

  try {
    const CollectiveSpec& s = p->spec_;
    const std::size_t width = dtype_bytes(s.dtype);
    const HostTensor x = [&] {
      const PhaseTimer timer(p->phases_.generate);
      return RankInputs(s, c.seed, c.id, place.ranks).tensor(place.rank);
    }();
    const PhaseTimer timer(p->phases_.copy);
    const std::size_t y_bytes = p->sized_.outputs[0].bytes();  // checked: count times ranks times width
    const auto offset_bytes = [&](int64_t elements) -> std::size_t {
      if (auto b = checked_mul(static_cast<uint64_t>(elements), width)) return *b;
      throw SizeError("y", {}, "the in-place offset of y does not fit 64 bits");
    };
    if (!s.in_place) {
      p->buffers_.push_back(DeviceBuffer::input(backend, device, x.bytes));
      p->buffers_.push_back(DeviceBuffer::guarded_output(backend, device, y_bytes));
      p->call_->set_input_data(0, p->buffers_[0].data());
      p->call_->set_output_data(0, p->buffers_[1].data());
      return p;
    }
    // One buffer holds x and y; the larger of the two spans it (docs/OPS.md, in place).
    const int64_t offset = s.in_place_output_offset(place.rank);  // y relative to x, in elements
    const std::size_t x_at = offset < 0 ? offset_bytes(-offset) : 0;
    p->y_offset_bytes_ = offset > 0 ? offset_bytes(offset) : 0;
    p->buffers_.push_back(DeviceBuffer::guarded_output(backend, device, std::max(x.bytes.size(), y_bytes)));
    auto* base = static_cast<std::byte*>(p->buffers_[0].data());
    backend.copy(device, OPCERT_COPY_HOST_TO_DEVICE, base + x_at, x.bytes.data(), x.bytes.size());
    p->call_->set_input_data(0, base + x_at);
    p->call_->set_output_data(0, base + p->y_offset_bytes_);
  } catch (const std::exception& e) {
    return end.fail(Status::kError, fmt::format("cannot place the operands on the device: {}", e.what()));
  }
  return p;
}

void PreparedCollective::run(opcert_comm* comm) {
  const PhaseTimer timer(phases_.launch);
  launch(comm);
  backend_->synchronize(device_);
}

void PreparedCollective::launch(opcert_comm* comm) { backend_->run(call_->call(), comm); }

std::size_t PreparedCollective::input_bytes() const { return sized_.inputs[0].bytes(); }

CaseResult PreparedCollective::check() {
  CaseResult r = check_output();
  r.phases = phases_;
  return r;
}

CaseResult PreparedCollective::check_output() {
  CaseResult r = blank_result(backend_->name(), impl_key_, *case_);
  r.rank = place_.rank;
  HostTensor y(sized_.outputs[0]);
  std::string oob;
  try {
    const PhaseTimer timer(phases_.copy);
    DeviceBuffer& holder = buffers_.back();
    std::vector<std::byte> whole;
    oob = holder.read_back(whole);
    std::copy_n(whole.begin() + static_cast<std::ptrdiff_t>(y_offset_bytes_), y.bytes.size(), y.bytes.begin());
  } catch (const std::exception& e) {
    r.status = Status::kError;
    r.message = e.what();
    return r;
  }
  std::string mismatch;
  try {
    const ExpectedOutput expected = [&] {
      const PhaseTimer timer(phases_.reference);
      return expected_output(spec_, RankInputs(spec_, case_->seed, case_->id, place_.ranks), place_.rank);
    }();
    const PhaseTimer timer(phases_.check);
    r.metrics.push_back(compare_rank_output(y, expected, place_.rank, mismatch));
  } catch (const std::exception& e) {
    r.status = Status::kError;
    r.message = fmt::format("reference failed: {}", e.what());
    return r;
  }
  if (!oob.empty()) {
    r.out_of_bounds_write = true;
    r.status = Status::kFailed;
    r.message = fmt::format("rank {}: out-of-bounds write around output 'y': {}", place_.rank, oob);
  } else if (!mismatch.empty()) {
    r.status = Status::kFailed;
    r.message = mismatch;
  } else {
    r.status = Status::kPassed;
  }
  return r;
}

}  // namespace opcert
