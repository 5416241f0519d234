#include "cli/list_cases.h"

#include <fmt/format.h>

#include <variant>

#include "model/dtype.h"
#include "session/execution/op_call_builder.h"
#include "session/planning/job_list.h"

namespace opcert {

using json = nlohmann::json;

namespace {

json fill_json(const FillSpec& f) {
  switch (f.kind) {
    case FillSpec::Kind::kRandom: return {{"kind", "uniform"}, {"lo", f.lo}, {"hi", f.hi}};
    case FillSpec::Kind::kExact:
      return {{"kind", "integers"}, {"lo", f.lo}, {"hi", f.hi}, {"density", f.density}, {"step", f.step}};
    case FillSpec::Kind::kValues: return {{"kind", "values"}, {"values", f.values}};
    case FillSpec::Kind::kRopeCos: return {{"kind", "rope_cos"}, {"base", f.base}};
    case FillSpec::Kind::kRopeSin: return {{"kind", "rope_sin"}, {"base", f.base}};
  }
  return nullptr;
}

json tensors_json(const std::vector<TensorSpec>& specs, bool with_fill) {
  json out = json::array();
  for (const auto& t : specs) {
    json entry = {{"name", t.name}, {"dtype", std::string(dtype_name(t.dtype))}, {"shape", t.shape}};
    if (with_fill) entry["fill"] = fill_json(t.fill);
    out.push_back(std::move(entry));
  }
  return out;
}

json attrs_json(const Attrs& attrs) {
  json out = json::object();
  for (const auto& [name, value] : attrs) std::visit([&, n = name](const auto& v) { out[n] = v; }, value);
  return out;
}

json implementation_entry(BackendHandle& backend, const ImplementationInfo& impl, const Case& c) {
  json entry = {{"backend", backend.name()}, {"impl_key", impl.key}};
  try {
    const OpCallBuilder call(c, impl.key, backend.devices().at(0).device);
    const SupportAnswer answer = backend.query(call.call());
    entry["supported"] = answer.supported;
    if (answer.supported)
      entry["library_call"] = answer.library_call.empty() ? json(nullptr) : json(answer.library_call);
    else
      entry["reason"] = answer.reason;
  } catch (const std::exception& e) {
    entry["supported"] = false;
    entry["reason"] = fmt::format("query_op failed: {}", e.what());
  }
  return entry;
}

}  // namespace

json list_cases(const Suite& suite, const std::string& filter, const std::vector<BackendHandle*>& backends) {
  json cases = json::array();
  for (const std::size_t i : filter_cases(suite.cases, filter)) {
    const Case& c = suite.cases.at(i);
    json impls = json::array();
    for (BackendHandle* backend : backends)
      for (const ImplementationInfo& impl : backend->implementations())
        if (impl.op == c.op) impls.push_back(implementation_entry(*backend, impl, c));
    cases.push_back({{"id", c.id},
                     {"op", c.op},
                     {"dtype", c.dtype},
                     {"inputs", tensors_json(c.inputs, true)},
                     {"outputs", tensors_json(c.outputs, false)},
                     {"attributes", attrs_json(c.attrs)},
                     {"implementations", impls}});
  }
  return cases;
}

std::string render_cases_text(const json& cases) {
  std::string out = fmt::format("Cases ({}):\n", cases.size());
  for (const auto& c : cases) {
    out += fmt::format("  {}\n", c["id"].get<std::string>());
    if (c["implementations"].empty()) out += "    no implementation of this op in the selected backends\n";
    for (const auto& i : c["implementations"]) {
      std::string what;
      if (!i["supported"].get<bool>())
        what = "declines: " + i["reason"].get<std::string>();
      else if (i["library_call"].is_string())
        what = i["library_call"].get<std::string>();
      else
        what = "runs (its backend does not name a library call)";
      out += fmt::format("    {:<32} {}\n", i["impl_key"].get<std::string>(), what);
    }
  }
  return out;
}

}  // namespace opcert
