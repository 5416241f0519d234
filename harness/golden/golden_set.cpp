#include "golden/golden_set.h"

#include <fmt/format.h>


#include "golden/golden_case.h"
#include "golden/safetensors.h"
#include "loader/file_digest.h"
#include "model/input_error.h"
#include "model/strict_json.h"
#include "model/text_file.h"

namespace opcert {

nlohmann::ordered_json GoldenManifest::to_json() const {
  nlohmann::ordered_json suites_json = nlohmann::ordered_json::array();
  for (const GoldenSuiteEntry& s : suites) {
    nlohmann::ordered_json cases = nlohmann::ordered_json::array();
    for (const GoldenCaseEntry& c : s.cases) {
      if (!c.error.empty())
        cases.push_back({{"id", c.id}, {"op", c.op}, {"error", c.error}});
      else
        cases.push_back({{"id", c.id}, {"op", c.op}, {"file", c.file}, {"bytes", c.bytes}, {"sha256", c.sha256}, {"sampled", c.sampled}});
    }
    suites_json.push_back({{"suite", s.suite}, {"suite_sha256", s.suite_sha256}, {"seed", s.seed}, {"cases", std::move(cases)}});
  }
  return {{"format", kGoldenSetFormat},
          {"version", kGoldenSetVersion},
          {"opcert", {{"version", opcert_version}, {"commit", opcert_commit}}},
          {"reference", reference},
          {"created", created},
          {"suites", std::move(suites_json)}};
}

GoldenManifest GoldenManifest::from_json(const nlohmann::json& doc, const std::string& source) {
  std::string where = "manifest";
  try {
    if (doc.at("format").get<std::string>() != kGoldenSetFormat)
      throw InputError(fmt::format("{}: not a golden set manifest (format '{}')", source, doc.at("format").get<std::string>()));
    if (doc.at("version").get<int>() != kGoldenSetVersion)
      throw InputError(fmt::format("{}: golden set version {}, this opcert reads version {}: export the set again with it",
                                   source, doc.at("version").get<int>(), kGoldenSetVersion));
    GoldenManifest m;
    m.opcert_version = doc.at("opcert").at("version").get<std::string>();
    m.opcert_commit = doc.at("opcert").at("commit").get<std::string>();
    m.reference = doc.at("reference").get<std::string>();
    m.created = doc.at("created").get<std::string>();
    const auto& suites = doc.at("suites");
    for (std::size_t i = 0; i < suites.size(); ++i) {
      where = fmt::format("suites[{}]", i);
      const auto& s = suites.at(i);
      GoldenSuiteEntry e;
      e.suite = s.at("suite").get<std::string>();
      e.suite_sha256 = s.at("suite_sha256").get<std::string>();
      e.seed = s.at("seed").get<uint64_t>();
      const auto& cases = s.at("cases");
      for (std::size_t k = 0; k < cases.size(); ++k) {
        where = fmt::format("suites[{}].cases[{}]", i, k);
        const auto& c = cases.at(k);
        GoldenCaseEntry ce;
        ce.id = c.at("id").get<std::string>();
        ce.op = c.at("op").get<std::string>();
        if (c.contains("error")) {
          ce.error = c.at("error").get<std::string>();
          e.cases.push_back(std::move(ce));
          continue;
        }
        ce.file = c.at("file").get<std::string>();
        ce.sha256 = c.at("sha256").get<std::string>();
        ce.bytes = c.at("bytes").get<uint64_t>();
        ce.sampled = c.at("sampled").get<bool>();
        if (ce.file.empty() || ce.file.front() == '/' || ce.file.find("..") != std::string::npos)
          throw InputError(fmt::format("{}: {}.file '{}' is not a path inside the set", source, where, ce.file));
        e.cases.push_back(std::move(ce));
      }
      m.suites.push_back(std::move(e));
    }
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: {}: {}", source, where, e.what()));
  }
}

std::string golden_file_name(const std::string& case_id) {
  std::string name;
  for (unsigned char c : case_id) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    name += plain ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
  }
  if (name.empty() || name.front() == '.') name = "%2E" + name.substr(name.empty() ? 0 : 1);
  return name + ".safetensors";
}

GoldenSet GoldenSet::open(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / "manifest.json";
  const std::optional<std::string> text = read_text_file(path);
  if (!text)
    throw InputError(fmt::format("--golden '{}': no manifest.json there: give the folder `opcert golden export` wrote", dir.string()));
  GoldenSet set;
  set.dir_ = dir;
  const std::string& bytes = *text;
  set.manifest_ = GoldenManifest::from_json(parse_strict_json(bytes, path.string()), path.string());
  set.manifest_sha256_ = sha256_hex(std::string_view(bytes));  // of the text parsed
  return set;
}

const GoldenSuiteEntry& GoldenSet::require(const std::string& suite, const std::string& suite_sha256, uint64_t seed) const {
  std::vector<std::string> held;
  for (const GoldenSuiteEntry& s : manifest_.suites) {
    if (s.suite_sha256 == suite_sha256 && s.seed == seed) return s;
    held.push_back(fmt::format("{} seed {}", s.suite, s.seed));
  }
  for (const GoldenSuiteEntry& s : manifest_.suites)
    if (s.suite == suite && s.seed == seed)
      throw InputError(fmt::format("--golden '{}': suite '{}' has changed since the set was exported (sha256 {} there, {} here): "
                                   "export it again", dir_.string(), suite, s.suite_sha256.substr(0, 12), suite_sha256.substr(0, 12)));
  throw InputError(fmt::format("--golden '{}': the set has no suite '{}' with seed {} (it holds: {}); export it with "
                               "`opcert golden export --suite {} --seed {}`",
                               dir_.string(), suite, seed, fmt::join(held, ", "), suite, seed));
}

std::vector<ReferenceOutput> GoldenSet::reference(const GoldenSuiteEntry& entry, const Case& c, std::span<const HostTensor> inputs,
                                                  const SamplePlan& sample) const {
  const GoldenCaseEntry* found = nullptr;
  for (const GoldenCaseEntry& e : entry.cases)
    if (e.id == c.id) found = &e;
  if (found == nullptr)
    throw std::runtime_error(fmt::format("case '{}' is not in the golden set {} (suite '{}' seed {}): export it", c.id, dir_.string(),
                                         entry.suite, entry.seed));
  if (!found->error.empty()) throw std::runtime_error(found->error);
  const std::filesystem::path path = dir_ / found->file;
  // The size first: a file that grew is refused before it is read whole.
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw std::runtime_error(fmt::format("golden file {}: {}", path.string(), ec.message()));
  if (size != found->bytes)
    throw std::runtime_error(fmt::format("golden file {} has {} bytes, the manifest says {}: the set was changed after export",
                                         path.string(), size, found->bytes));
  // The digest is of the bytes then parsed: what is checked is what is used.
  std::vector<std::byte> bytes = read_file_bytes(path);
  if (const std::string digest = sha256_hex(bytes); digest != found->sha256)
    throw std::runtime_error(fmt::format("golden file {} has sha256 {}, the manifest says {}: the set was changed after export",
                                         path.string(), digest, found->sha256));
  return decode_golden_case(SafetensorsFile::parse(std::move(bytes), path.string()), c, inputs, sample);
}

}  // namespace opcert
