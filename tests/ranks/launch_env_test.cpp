// Launcher detection: MPI is initialised only under a launcher, so a wrong answer either starts
// MPI in a plain run or runs an MPI job's ranks each alone.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ranks/launch_env.h"
#include "ranks/world.h"

namespace opcert {
namespace {

LaunchEnv from(const std::map<std::string, std::string>& vars) {
  return read_launch_env([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(LaunchEnv, NothingSetIsNoLauncher) {
  const LaunchEnv e = from({});
  EXPECT_EQ(e.launcher, "");
  EXPECT_FALSE(e.rank);
}

TEST(LaunchEnv, OpenMpi) {
  const LaunchEnv e = from({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}});
  EXPECT_EQ(e.launcher, "Open MPI");
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.size, 4);
  EXPECT_EQ(e.local_rank, 1);
}

TEST(LaunchEnv, SrunStepButNotABatchScript) {
  EXPECT_EQ(from({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "8"}}).launcher, "");  // sbatch's own shell
  const LaunchEnv e = from({{"SLURM_PROCID", "5"}, {"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NUM_TASKS", "8"}, {"SLURM_LOCALID", "1"}});
  EXPECT_EQ(e.launcher, "Slurm srun");
  EXPECT_EQ(e.rank, 5);
  EXPECT_EQ(e.size, 8);
  EXPECT_EQ(e.local_rank, 1);
}

TEST(LaunchEnv, PmixAndPmiAndGarbage) {
  EXPECT_EQ(from({{"PMIX_RANK", "2"}, {"PMIX_SIZE", "4"}}).rank, 2);
  EXPECT_EQ(from({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}).size, 2);
  EXPECT_EQ(from({{"OMPI_COMM_WORLD_RANK", "x"}}).launcher, "");
}

TEST(LaunchEnv, OpenMpiJoinsMpirunAndPmixRanksOnly) {
  EXPECT_EQ(open_mpi_join_problem(from({})), "");
  EXPECT_EQ(open_mpi_join_problem(from({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}})), "");
  EXPECT_EQ(open_mpi_join_problem(from({{"PMIX_RANK", "1"}, {"SLURM_PROCID", "1"}, {"SLURM_STEP_ID", "0"}})), "");
  // srun --mpi=none, and srun --mpi=pmi2.
  const std::string none = open_mpi_join_problem(
      from({{"SLURM_PROCID", "1"}, {"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NUM_TASKS", "2"}}));
  EXPECT_NE(none.find("started by Slurm srun as rank 1 of 2 without PMIx"), std::string::npos) << none;
  EXPECT_NE(none.find("srun --mpi=pmix"), std::string::npos) << none;
  EXPECT_NE(open_mpi_join_problem(from({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}})).find("started by PMI"), std::string::npos);
}

TEST(World, WithoutALauncherIsOneRankThatSaysSo) {
  // The test runs without mpirun (ctest starts it directly).
  const auto world = make_world();
  EXPECT_EQ(world->size(), 1);
  EXPECT_EQ(world->rank(), 0);
  EXPECT_EQ(world->launcher(), "single");
  EXPECT_NE(world->single_rank_reason().find("single rank"), std::string::npos);
  EXPECT_EQ(world->all_min(5, std::chrono::steady_clock::now()), 5);
}

}  // namespace
}  // namespace opcert
