// A big case's inputs and fp64 reference, shared between the workers of one run on one host: a
// backend's worker and its peer's run the same case, and a model case's inputs are gigabytes that
// take a minute of a core to generate, its reference as long again (docs/PERFORMANCE.md, "The
// harness"). The first worker to reach such a case claims it (a lock file naming its process),
// makes the inputs (then the reference) and writes each to a file of the run's cache folder (in
// memory, /dev/shm); the others wait for the file while the claimant lives and read it instead of
// making it again. The bytes are the maker's: a file is renamed into place only once whole, and
// one that does not read back whole for the case is not used. The runner removes a case's files
// once every worker is done with the case (run/worker_lanes.h), and the folder at the end.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/case.h"
#include "model/host_tensor.h"
#include "opkit/reference_output.h"

namespace opcert {

/// The environment variables that give a worker the run's cache folder and the most bytes its
/// files may hold together (past it, a worker keeps what it makes to itself).
inline constexpr const char* kInputCacheEnvironmentVariable = "OPCERT_INPUT_CACHE";
inline constexpr const char* kInputCacheBytesEnvironmentVariable = "OPCERT_INPUT_CACHE_BYTES";

/// Cases with fewer input bytes are made by each worker: sharing them saves nothing.
inline constexpr uint64_t kInputCacheMinBytes = uint64_t{32} << 20;

/// Where a worker shares what it makes: the folder, and the most its files may hold.
struct InputCache {
  std::filesystem::path dir;  // empty: no sharing
  uint64_t max_bytes = 0;
};

/// The worker's InputCache from its environment (none when the runner set none).
InputCache input_cache_from_environment();

/// Whether `c`'s inputs are big enough to share (kInputCacheMinBytes).
bool worth_caching(const Case& c);

/// The files of case `case_id` in `dir`: its inputs and its reference.
std::filesystem::path input_cache_file(const std::filesystem::path& dir, const std::string& case_id);
std::filesystem::path reference_cache_file(const std::filesystem::path& dir, const std::string& case_id);

/// The inputs of `c`: read from the cache, or made by `generate` and shared (when `c` is worth it
/// and they fit the cache's bytes). The worker's stderr (its log) gets a line for each file it
/// read or shared: "opcert worker: case 'ID': inputs read from the run's cache" ("shared in").
std::vector<HostTensor> shared_inputs(const InputCache& cache, const Case& c,
                                      const std::function<std::vector<HostTensor>()>& generate);

/// The reference of `c` (its inputs being the cache's): likewise, made by `compute`.
std::vector<ReferenceOutput> shared_reference(const InputCache& cache, const Case& c,
                                              const std::function<std::vector<ReferenceOutput>()>& compute);

/// Removes every file of the folder (a case bigger than the memory gate runs alone: it must find
/// the memory free that it would find without the cache).
void clear_input_cache(const std::filesystem::path& dir);

/// A new private cache folder for one run in `parent` (in memory: /dev/shm), named for this
/// process (opcert-inputs-<pid>-XXXXXX), or nullopt where there is none to use. The folders there
/// of runners no longer alive are removed first.
std::optional<std::filesystem::path> make_input_cache_dir(const std::filesystem::path& parent = "/dev/shm");

}  // namespace opcert
