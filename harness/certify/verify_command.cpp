#include "certify/verify_command.h"

#include <fmt/format.h>

#include <filesystem>

#include "certify/bundle_rerun.h"
#include "certify/bundle_verifier.h"
#include "model/exit_codes.h"
#include "model/input_error.h"

namespace opcert {
namespace {

using nlohmann::json;

void print_verdict(const std::string& bundle, const VerifyOutcome& outcome, const std::vector<std::string>& problems,
                   const std::vector<std::string>& notes, const std::vector<std::string>& cannot) {
  const json& m = outcome.manifest;
  if (m.is_object())
    fmt::print("bundle: {} {} on plan {} ({} results), opcert {}\n", m.value("backend", json::object()).value("name", "?"),
               m.value("verdict", "?"), m.value("plan", json::object()).value("name", "?"), m.value("results", 0),
               m.value("opcert", json::object()).value("version", "?"));
  for (const auto& n : notes) fmt::print("note: {}\n", n);
  for (const auto& p : problems) fmt::print("INVALID: {}\n", p);
  for (const auto& c : cannot) fmt::print("cannot rerun: {}\n", c);
  const std::string unsigned_note =
      outcome.integrity_only.empty() ? "" : fmt::format("integrity only: {}", outcome.integrity_only);
  fmt::print("{}: {}\n", bundle,
             problems.empty() ? (unsigned_note.empty() ? "valid" : fmt::format("valid ({})", unsigned_note))
                              : fmt::format("invalid ({} problem(s){})", problems.size(),
                                            unsigned_note.empty() ? "" : "; " + unsigned_note));
}

}  // namespace

int verify_command(const VerifyRequest& request) {
  if (!request.public_key.empty() && !std::filesystem::is_regular_file(request.public_key))
    throw InputError(fmt::format("--pubkey '{}': no such file", request.public_key));
  const std::filesystem::path bundle(request.bundle);
  const VerifyOutcome outcome = verify_bundle(bundle, {request.public_key, request.plugin});
  std::vector<std::string> problems = outcome.problems, notes = outcome.notes, cannot;
  if (request.rerun > 0) {
    if (!problems.empty())
      notes.push_back("no case re-run: the bundle is already invalid");
    else
      rerun_cases(outcome, bundle, {request.rerun, request.rerun_seed, request.plugin, request.golden}, problems, notes,
                  cannot);
  }
  print_verdict(bundle.string(), outcome, problems, notes, cannot);
  // A sampled case whose device is not here was not checked: no usable backend (device) for it.
  if (!problems.empty()) return kExitCheckFailed;
  return cannot.empty() ? kExitOk : kExitNoBackend;
}

}  // namespace opcert
