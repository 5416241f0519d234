#include "check/execution.h"

#include <fmt/format.h>

#include <chrono>
#include <exception>

#include "check/compare.h"
#include "check/device_buffer.h"
#include "check/fill.h"
#include "check/op_call_builder.h"
#include "check/sample_plan.h"
#include "model/dtype.h"
#include "reference/reference.h"

namespace opcert {
namespace {

using Clock = std::chrono::steady_clock;

CaseResult blank_result(const BackendHandle& backend, const std::string& impl_key, const Case& c) {
  CaseResult r;
  r.backend = backend.name();
  r.impl_key = impl_key;
  r.suite = c.suite;
  r.case_id = c.id;
  r.op = c.op;
  r.dtype = c.inputs.empty() ? "" : std::string(dtype_name(c.inputs.front().dtype));
  return r;
}

// Runs the op with guarded device buffers and returns the outputs as they came back; an
// out-of-bounds write is reported through `oob`.
std::vector<HostTensor> run_on_device(BackendHandle& backend, opcert_device device, const Case& c,
                                      OpCallBuilder& call, const std::vector<HostTensor>& inputs, std::string& oob) {
  std::vector<DeviceBuffer> in_buffers, out_buffers;
  in_buffers.reserve(inputs.size());
  out_buffers.reserve(c.outputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    in_buffers.push_back(DeviceBuffer::input(backend, device, inputs[i].bytes));
    call.set_input_data(i, in_buffers.back().data());
  }
  for (std::size_t i = 0; i < c.outputs.size(); ++i) {
    out_buffers.push_back(DeviceBuffer::guarded_output(backend, device, c.outputs[i].bytes()));
    call.set_output_data(i, out_buffers.back().data());
  }
  backend.run(call.call());
  backend.synchronize(device);
  std::vector<HostTensor> outputs;
  for (std::size_t i = 0; i < c.outputs.size(); ++i) {
    HostTensor t(c.outputs[i]);
    if (std::string where = out_buffers[i].read_back(t.bytes); !where.empty() && oob.empty())
      oob = fmt::format("out-of-bounds write on output '{}': {}", c.outputs[i].name, where);
    outputs.push_back(std::move(t));
  }
  return outputs;
}

}  // namespace

CaseResult execute_case(BackendHandle& backend, const std::string& impl_key, const Case& c,
                        const ExecutionOptions& options) {
  const auto start = Clock::now();
  CaseResult r = blank_result(backend, impl_key, c);
  const auto finish = [&](Status status, std::string message) {
    r.status = status;
    r.message = std::move(message);
    r.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return r;
  };
  if (options.device_index < 0 || static_cast<std::size_t>(options.device_index) >= backend.devices().size())
    return finish(Status::kError, fmt::format("backend '{}' has no device {}", backend.name(), options.device_index));
  const opcert_device device = backend.devices()[static_cast<std::size_t>(options.device_index)].device;

  OpCallBuilder call(c, impl_key, device);
  try {
    const SupportAnswer answer = backend.query(call.call());
    if (!answer.supported) return finish(Status::kSkipped, answer.reason.empty() ? "unsupported" : answer.reason);
  } catch (const std::exception& e) {
    return finish(Status::kError, fmt::format("query_op failed: {}", e.what()));
  }

  std::vector<HostTensor> inputs;
  try {
    for (const auto& spec : c.inputs) inputs.push_back(generate_input(spec, c.seed, c.id));
  } catch (const std::exception& e) {
    return finish(Status::kError, fmt::format("cannot generate the inputs: {}", e.what()));
  }

  std::string oob;
  std::vector<HostTensor> outputs;
  try {
    outputs = run_on_device(backend, device, c, call, inputs, oob);
  } catch (const std::exception& e) {
    return finish(Status::kError, e.what());
  }

  try {
    const int64_t limit = c.sample_elements > 0 ? c.sample_elements : options.default_sample_elements;
    const SamplePlan plan = make_sample_plan(c, limit);
    r.sampled = !plan.empty();
    const std::vector<ReferenceOutput> golden = compute_reference(c, inputs, plan);
    for (const auto& ref : golden) {
      const HostTensor* got = find_tensor(outputs, ref.name);
      if (got == nullptr) return finish(Status::kError, fmt::format("the reference has no output '{}'", ref.name));
      r.metrics.push_back(compare_output(*got, ref, output_tolerance(c, ref, options.bound_override)));
    }
  } catch (const std::exception& e) {
    return finish(Status::kError, fmt::format("reference failed: {}", e.what()));
  }

  if (!oob.empty()) {
    r.out_of_bounds_write = true;
    return finish(Status::kFailed, oob);
  }
  std::string message;
  const Status status = judge(r.metrics, message);
  return finish(status, message);
}

}  // namespace opcert
