#include "reports/result_text.h"

#include <fmt/format.h>

#include "model/device_tag.h"
#include "reports/number_format.h"

namespace opcert {

std::string describe_metrics(const TensorMetrics& m) {
  return fmt::format(
      "{}: {}/{} out of bound ({} NaN/Inf), checked {} of {}; max_abs {}, max_rel {}, mean_abs {}, rmse {}, "
      "cosine {}, max_ulp {}, error_ratio {}, zero_fraction {}",
      m.name, m.mismatches, m.checked, m.nan_inf_mismatches, m.checked, m.total, text_number(m.max_abs),
      text_number(m.max_rel), text_number(m.mean_abs), text_number(m.rmse), text_number(m.cosine), m.max_ulp,
      text_number(m.error_ratio), text_number(m.zero_fraction));
}

std::string describe_rounding(const TensorMetrics& m) {
  const RoundingMetrics& r = m.rounding;
  if (r.decisive == 0 && r.bias_elements == 0) return "";
  std::string text = fmt::format("{}: rounding decided on {} elements, {} not to nearest even", m.name, r.decisive, r.misrounded);
  if (!r.bias_direction.empty())
    text += fmt::format("; bias {} ulp by {} over {} elements, z {}{}", text_number(r.bias_ulp), r.bias_direction,
                        r.bias_elements, text_number(r.bias_z), r.biased ? " (biased)" : "");
  return text;
}

std::string describe_worst_element(const TensorMetrics& m) {
  if (m.worst.index < 0) return "";
  return fmt::format("{}[{}]: got {}, expected {}, bound {}", m.name, m.worst.index, text_number(m.worst.got),
                     text_number(m.worst.expected), text_number(m.worst.bound));
}

std::string describe_result(const CaseResult& r) {
  std::string text = r.message.empty() ? std::string(status_name(r.status)) : r.message;
  text += "\n";
  for (const auto& m : r.metrics) {
    text += describe_metrics(m) + "\n";
    if (const auto worst = describe_worst_element(m); !worst.empty()) text += "  worst element " + worst + "\n";
    if (const auto rounding = describe_rounding(m); !rounding.empty()) text += "  " + rounding + "\n";
  }
  if (r.sampled) text += "reference checked on a sample of the outputs\n";
  if (r.out_of_bounds_write) text += "the backend wrote past the end of an output buffer\n";
  if (r.alignment_ratio || r.peer_rmse)
    text += fmt::format("alignment: rmse / peer rmse = {} (peer rmse {})\n", text_number(r.alignment_ratio),
                        text_number(r.peer_rmse));
  if (r.device)  // which physical device, for the failure of one device among several
    text += fmt::format("device: {} {} on host {}, UUID {}, PCI {}\n", device_label(r.device, r.rank), r.device->name,
                        r.device->host, identity_text(r.device->uuid), identity_text(r.device->pci_bus_id));
  if (!r.repro.empty()) text += "repro: " + r.repro + "\n";
  return text;
}

}  // namespace opcert
