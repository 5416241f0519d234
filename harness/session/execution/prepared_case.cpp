#include "session/execution/prepared_case.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "check/compare.h"
#include "check/fill.h"
#include "check/sample_plan.h"
#include "model/checked_size.h"
#include "model/dtype.h"
#include "reference/reference.h"
#include "session/execution/early_end.h"
#include "session/execution/input_cache.h"
#include "session/execution/memory_admission.h"

namespace opcert {

PreparedCase::PreparedCase(BackendHandle& backend, const std::string& impl_key, const Case& c, opcert_device device,
                           const ExecutionOptions& options)
    : backend_(&backend), impl_key_(impl_key), case_(&c), device_(device), options_(options), call_(c, impl_key, device) {}

std::unique_ptr<PreparedCase> PreparedCase::prepare(BackendHandle& backend, const std::string& impl_key, const Case& c,
                                                    const ExecutionOptions& options, CaseResult& early) {
  early = blank_result(backend.name(), impl_key, c);
  if (options.memo) options.memo->begin(c);  // the last case let go before this one is admitted
  std::unique_ptr<PreparedCase> p;
  const EarlyEnd<PreparedCase> end(early, p);
  if (options.device_index < 0 || static_cast<std::size_t>(options.device_index) >= backend.devices().size())
    return end.fail(Status::kError, fmt::format("backend '{}' has no device {}", backend.name(), options.device_index));
  const opcert_device device = backend.devices()[static_cast<std::size_t>(options.device_index)].device;

  p.reset(new PreparedCase(backend, impl_key, c, device, options));
  try {
    const SupportAnswer answer = backend.query(p->call_.call());
    if (!answer.supported) return end.skip(skip_reason::kDeclined, answer.reason.empty() ? "unsupported" : answer.reason);
  } catch (const std::exception& e) {
    return end.fail(Status::kError, fmt::format("query_op failed: {}", e.what()));
  }
  // Admitted before anything is allocated: a case too big is SKIPPED with its figures, not left to
  // allocate until the timeout or the OOM killer ends it.
  const MemoryLimits limits =
      memory_limits(backend.devices()[static_cast<std::size_t>(options.device_index)], options.max_memory);
  try {
    if (const std::string why = admission_refusal(case_footprint(c), limits); !why.empty()) return end.skip(skip_reason::kTooBig, why);
  } catch (const SizeError& e) {  // a case no suite loads (it refuses them): never run
    return end.fail(Status::kError, e.what());
  }
  p->mark_phase(false);
  try {
    const PhaseTimer timer(p->phases_.generate);
    const auto generate = [&c, &options] {
      const auto make = [&c] {
        std::vector<HostTensor> inputs;
        for (const auto& spec : c.inputs) inputs.push_back(generate_input(spec, c.seed, c.id));
        return inputs;
      };
      return shared_inputs(options.input_cache, c, make);
    };
    p->inputs_ = options.memo ? options.memo->inputs(c, generate)
                              : std::make_shared<const std::vector<HostTensor>>(generate());
  } catch (const std::exception& e) {
    return end.fail(Status::kError, fmt::format("cannot generate the inputs: {}", e.what()));
  }
  p->mark_phase(true);
  try {
    const PhaseTimer timer(p->phases_.copy);
    const std::vector<HostTensor>& inputs = *p->inputs_;
    p->in_buffers_.reserve(inputs.size());
    p->out_buffers_.reserve(c.outputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      p->in_buffers_.push_back(DeviceBuffer::input(backend, device, inputs[i].bytes));
      p->call_.set_input_data(i, p->in_buffers_.back().data());
    }
    for (std::size_t i = 0; i < c.outputs.size(); ++i) {
      p->out_buffers_.push_back(DeviceBuffer::guarded_output(backend, device, c.outputs[i].bytes()));
      p->call_.set_output_data(i, p->out_buffers_.back().data());
    }
  } catch (const std::exception& e) {
    return end.fail(Status::kError, fmt::format("cannot place the operands on the device: {}", e.what()));
  }
  return p;
}

PreparedCase::~PreparedCase() {
  try {
    backend_->publish_outputs(call_.call());
  } catch (const std::exception&) {
    // nothing pending can matter now: the outputs are about to be freed
  }
}

void PreparedCase::mark_phase(bool backend) const {
  if (options_.phase_mark) options_.phase_mark(backend);
}

void PreparedCase::launch() { backend_->run(call_.call()); }

std::string PreparedCase::library_call() {
  try {
    return backend_->query(call_.call()).library_call;
  } catch (const std::exception&) {
    return "";
  }
}

std::size_t PreparedCase::device_bytes() const {
  std::size_t total = 0;
  for (const auto& t : *inputs_) total += t.bytes.size();
  for (const auto& o : case_->outputs) total += o.bytes();
  return total;
}

CaseResult PreparedCase::check() {
  CaseResult r = check_outputs();
  r.phases = phases_;
  return r;
}

CaseResult PreparedCase::check_outputs() {
  const Case& c = *case_;
  CaseResult r = blank_result(backend_->name(), impl_key_, c);
  const auto finish = [&](Status status, std::string message) {
    r.status = status;
    r.message = std::move(message);
    return r;
  };

  std::string oob;
  std::vector<HostTensor> outputs;
  try {
    {
      const PhaseTimer timer(phases_.launch);
      published_bytes_ = backend_->publish_outputs(call_.call());
      backend_->synchronize(device_);
    }
    const PhaseTimer timer(phases_.copy);
    for (std::size_t i = 0; i < c.outputs.size(); ++i) {
      HostTensor t(c.outputs[i]);
      if (std::string where = out_buffers_[i].read_back(t.bytes); !where.empty() && oob.empty())
        oob = fmt::format("out-of-bounds write on output '{}': {}", c.outputs[i].name, where);
      outputs.push_back(std::move(t));
    }
  } catch (const std::exception& e) {
    return finish(Status::kError, e.what());
  }

  mark_phase(false);
  try {
    CaseMemo::Golden golden;
    {
      const PhaseTimer timer(phases_.reference);
      const SamplePlan plan = case_sample_plan(c);
      r.sampled = !plan.empty();
      const auto compute = [&] {
        const auto make = [&] {
          return options_.reference ? options_.reference(c, *inputs_, plan) : compute_reference(c, *inputs_, plan);
        };
        return shared_reference(options_.input_cache, c, make);
      };
      golden = options_.memo ? options_.memo->golden(c, compute)
                             : std::make_shared<const std::vector<ReferenceOutput>>(compute());
    }
    const PhaseTimer timer(phases_.check);
    for (const auto& ref : *golden) {
      const HostTensor* got = find_tensor(outputs, ref.name);
      if (got == nullptr) return finish(Status::kError, fmt::format("the reference has no output '{}'", ref.name));
      r.metrics.push_back(compare_output(*got, ref, output_tolerance(c, ref, options_.bound_override)));
    }
  } catch (const std::exception& e) {
    return finish(Status::kError, fmt::format("reference failed: {}", e.what()));
  }

  if (!oob.empty()) {
    r.out_of_bounds_write = true;
    return finish(Status::kFailed, oob);
  }
  const PhaseTimer timer(phases_.check);
  std::string message;
  const bool zeros_expected = std::find(c.tags.begin(), c.tags.end(), "zeros_expected") != c.tags.end();
  const Status status = judge(r.metrics, message, zeros_expected);
  return finish(status, message);
}

}  // namespace opcert
