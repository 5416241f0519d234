// The loaders of untrusted input, each as a fuzz target (docs/RELIABILITY.md, "Malformed input"):
// bytes in, the loader run on them, and nothing but a clean refusal allowed out. The same functions
// serve the deterministic mutation test here and, built with clang's libFuzzer, a fuzzer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace opcert::fuzz {

struct LoaderTarget {
  const char* name;           // "suite", "platform", ...
  const char* seed_glob_dir;  // where its seed files lie, relative to the source root
  const char* seed_suffix;    // ".json", ".jsonl"
  /// Runs the loader on `bytes`. Returns normally when it loaded them or refused them with a
  /// std::runtime_error (InputError, or the results.jsonl reader's "<path>:<line>: why"); lets any
  /// other exception escape: that, or a crash, is a finding.
  void (*run)(const std::string& bytes);
};

/// suite files, platform configs, plugin manifests, report.json, results.jsonl and job.json.
const std::vector<LoaderTarget>& loader_targets();

}  // namespace opcert::fuzz
