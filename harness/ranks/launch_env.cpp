#include "ranks/launch_env.h"

#include <fmt/format.h>

#include <cstdlib>
#include <initializer_list>

namespace opcert {
namespace {

std::optional<int> as_int(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 0 || v > 1 << 24) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace

LaunchEnv read_launch_env(const std::function<const char*(const char*)>& env) {
  LaunchEnv e;
  const auto first = [&](std::initializer_list<const char*> names) -> std::optional<int> {
    for (const char* n : names)
      if (auto v = as_int(env(n))) return v;
    return std::nullopt;
  };
  if (auto r = as_int(env("OMPI_COMM_WORLD_RANK"))) {
    e.launcher = "Open MPI";
    e.rank = r;
    e.size = as_int(env("OMPI_COMM_WORLD_SIZE"));
  } else if (auto r = as_int(env("PMIX_RANK"))) {
    e.launcher = "PMIx";
    e.rank = r;
    e.size = first({"PMIX_SIZE", "SLURM_NTASKS", "SLURM_NPROCS"});
  } else if (auto r = as_int(env("PMI_RANK"))) {
    e.launcher = "PMI";
    e.rank = r;
    e.size = first({"PMI_SIZE", "SLURM_NTASKS"});
  } else if (env("SLURM_STEP_ID") != nullptr && as_int(env("SLURM_PROCID"))) {
    // Inside an srun step (not merely a batch script, which has SLURM_PROCID too).
    e.launcher = "Slurm srun";
    e.rank = as_int(env("SLURM_PROCID"));
    e.size = first({"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"});
  }
  if (!e.launcher.empty())
    e.local_rank = first({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "SLURM_LOCALID"});
  return e;
}

std::string open_mpi_join_problem(const LaunchEnv& e) {
  if (e.launcher.empty() || e.launcher == "Open MPI" || e.launcher == "PMIx") return "";
  return fmt::format(
      "started by {} as rank {} of {} without PMIx: this opcert's MPI (Open MPI) joins the ranks of an srun step "
      "through PMIx only; run `srun --mpi=pmix ...` (`srun --mpi=list` shows this Slurm's plugins; docs/SCALE.md)",
      e.launcher, e.rank.value_or(0), e.size.value_or(1));
}

LaunchEnv read_launch_env() {
  return read_launch_env([](const char* name) { return std::getenv(name); });
}

}  // namespace opcert
