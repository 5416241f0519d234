// `opcert verify` (docs/CERTIFY.md): checks a certification bundle: every checksum, that its files
// agree with each other, the signature against the vendor's public key, that a plugin library is
// the certified one, and with --rerun that cases chosen at random from results.jsonl reproduce their
// recorded verdicts on this machine, each on the device (by UUID) it was recorded on. Exit 0 valid,
// 1 invalid (each problem named), 2 unusable input, 3 a sampled case's device is not here.
#include <limits>
#include <memory>

#include "certify/verify_command.h"
#include "cli/flag_checks.h"
#include "cli/verbs.h"

namespace opcert {

void add_verify_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand(
      "verify",
      "Check a certification bundle: every file against SHA256SUMS, that its files agree on every result and the "
      "verdict, the Ed25519 signature against --pubkey, that "
      "--plugin is the certified library, and with --rerun N that N cases chosen at random reproduce their verdicts "
      "here, each on the device (by UUID) it was recorded on. Exit 0 valid, 1 invalid (each problem named), 2 unusable, "
      "3 a sampled case's device is not on this machine.");
  auto flags = std::make_shared<VerifyRequest>();
  verb->add_option("bundle", flags->bundle, "The bundle's directory")->required()->type_name("BUNDLE")->check(existing_path());
  verb->add_option("--pubkey", flags->public_key, "The vendor's Ed25519 public key (PEM) the bundle must be signed with")
      ->type_name("FILE")
      ->check(existing_path());
  verb->add_option("--plugin", flags->plugin, "A plugin library that must be the certified one (and reruns load)")
      ->type_name("LIB");
  verb->add_option("--rerun", flags->rerun, "Re-run this many of the certified backend's cases, chosen at random, each on its recorded device")
      ->type_name("N")
      ->check(whole_number(0, std::numeric_limits<int>::max()));
  verb->add_option("--golden", flags->golden,
                   "Reruns judge against this golden set (`opcert golden export`): on a machine without LibTorch")
      ->type_name("DIR")
      ->check(existing_path());
  verb->add_option("--rerun-seed", flags->rerun_seed, "Choose them with this seed (default: a random one, printed)")
      ->type_name("SEED")
      ->check(whole_number());

  verb->callback([flags, &exit_code] { exit_code = verify_command(*flags); });
}

}  // namespace opcert
