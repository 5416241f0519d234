// `opcert verify --rerun N` (docs/CERTIFY.md): cases of the certified backend chosen at random from
// the bundle's results.jsonl, each re-run by this opcert (`opcert run` in a child, in a private
// temporary folder), must reproduce their recorded verdicts here; with a Python backend, the
// package that reran must be the certified one.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "certify/bundle_verifier.h"

namespace opcert {

struct RerunRequest {
  int count = 0;           ///< --rerun: how many cases
  std::string seed;        ///< --rerun-seed; "" for a random one (printed in the note)
  std::string plugin;      ///< --plugin, else the manifest's library_path
  std::string golden;      ///< --golden: reruns judge against this golden set
};

/// Re-runs the chosen cases of the valid bundle `outcome` describes, each recorded on a chosen
/// device on the device of that UUID here (`--devices`): a line per reproduced case on stdout, a
/// problem per case that was not (or per other package that reran), a line in `cannot` per
/// recorded device this machine lacks (its cases are not rerun), and one note saying how many
/// reproduced with which seed (and where the reports are kept when one did not).
/// InputError when no temporary folder can be made.
void rerun_cases(const VerifyOutcome& outcome, const std::filesystem::path& bundle, const RerunRequest& request,
                 std::vector<std::string>& problems, std::vector<std::string>& notes, std::vector<std::string>& cannot);

}  // namespace opcert
