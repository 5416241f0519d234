// `opcert verify` once its flags are read (docs/CERTIFY.md): the bundle's checks, the reruns it
// asks for, and what it prints: the bundle's line, the notes, each problem, and the verdict.
#pragma once

#include <string>

namespace opcert {

struct VerifyRequest {
  std::string bundle;
  std::string public_key;  ///< --pubkey, "" for none
  std::string plugin;      ///< --plugin: must be the certified library; reruns load it
  int rerun = 0;           ///< --rerun N
  std::string rerun_seed;  ///< --rerun-seed, "" for a random one
  std::string golden;      ///< --golden: reruns judge against this golden set
};

/// Checks and prints; returns kExitOk for a valid bundle, kExitCheckFailed for an invalid one.
/// InputError for what is not a bundle or a --pubkey that is not a file.
int verify_command(const VerifyRequest& request);

}  // namespace opcert
