// How a process finds its place in a distributed run from flags and the
// environment (launch.hpp), with the environments mpirun and srun give.
#include <doctest/doctest.h>

#include <map>

#include "core/error.hpp"
#include "distributed/launch.hpp"

using namespace sgnn;
using namespace sgnn::distributed;

namespace {

Environment environment_of(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const std::string& name) -> std::optional<std::string> {
    const auto it = variables.find(name);
    return it == variables.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

}  // namespace

TEST_CASE("launch: one rank without a launcher, MPI under mpirun or srun --mpi=pmix") {
  CHECK(detect_launch({}, environment_of({})).mode == LaunchMode::Single);
  CHECK(detect_launch({}, environment_of({{"SLURM_NTASKS", "1"}, {"SLURM_PROCID", "0"}})).mode == LaunchMode::Single);
  CHECK(detect_launch({}, environment_of({{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "2"}})).mode ==
        LaunchMode::Mpi);
  CHECK(detect_launch({}, environment_of({{"PMIX_RANK", "1"}, {"SLURM_NTASKS", "8"}})).mode == LaunchMode::Mpi);
  CHECK(std::string(launch_mode_name(LaunchMode::Rendezvous)) == "rendezvous");
}

TEST_CASE("launch: the launcher-free mode from flags, SGNN_* variables or SLURM's") {
  LaunchFlags flags;
  flags.rendezvous = "/shared/run.id";
  flags.rank = 1;
  flags.world_size = 2;
  flags.run_id = "trial-7";
  const Launch from_flags = detect_launch(flags, environment_of({{"SGNN_RANK", "0"}}));
  CHECK(from_flags.mode == LaunchMode::Rendezvous);
  CHECK(from_flags.rank == 1);  // flags win over the environment
  CHECK(from_flags.world_size == 2);
  CHECK(from_flags.local_rank == 1);  // all on one host unless told
  CHECK(from_flags.run_id == "trial-7");
  CHECK(from_flags.rendezvous == "/shared/run.id");

  const Launch from_sgnn = detect_launch({}, environment_of({{"SGNN_RENDEZVOUS", "/shared/x"}, {"SGNN_RANK", "3"},
                                                             {"SGNN_WORLD_SIZE", "4"}, {"SGNN_LOCAL_RANK", "1"},
                                                             {"SGNN_RUN_ID", "a"}}));
  CHECK(from_sgnn.rank == 3);
  CHECK(from_sgnn.world_size == 4);
  CHECK(from_sgnn.local_rank == 1);

  // srun -N 2 --ntasks-per-node 4: task 5 is the second on its node.
  LaunchFlags slurm_flags;
  slurm_flags.rendezvous = "/shared/y";
  const Launch from_slurm = detect_launch(slurm_flags, environment_of({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "8"},
                                                                       {"SLURM_LOCALID", "1"}, {"SLURM_JOB_ID", "991"},
                                                                       {"SLURM_STEP_ID", "0"}}));
  CHECK(from_slurm.rank == 5);
  CHECK(from_slurm.world_size == 8);
  CHECK(from_slurm.local_rank == 1);
  CHECK(from_slurm.run_id == "slurm-991.0");
}

TEST_CASE("launch: incomplete or contradictory settings are refused with the flag or variable named") {
  LaunchFlags rank_only;
  rank_only.rank = 0;
  CHECK_THROWS_WITH_AS(detect_launch(rank_only, environment_of({})), doctest::Contains("--rendezvous FILE"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(detect_launch({}, environment_of({{"SLURM_NTASKS", "4"}})),
                       doctest::Contains("one of 4 tasks without MPI"), InvalidArgument);
  LaunchFlags flags;
  flags.rendezvous = "/shared/z";
  CHECK_THROWS_WITH_AS(detect_launch(flags, environment_of({{"SGNN_RUN_ID", "r"}})),
                       doctest::Contains("needs this process's rank and the world size"), InvalidArgument);
  CHECK_THROWS_WITH_AS(detect_launch(flags, environment_of({{"SGNN_RANK", "x1"}, {"SGNN_WORLD_SIZE", "2"}})),
                       doctest::Contains("$SGNN_RANK is \"x1\", not an integer"), InvalidArgument);
  CHECK_THROWS_WITH_AS(detect_launch(flags, environment_of({{"SGNN_RANK", "2"}, {"SGNN_WORLD_SIZE", "2"},
                                                            {"SGNN_RUN_ID", "r"}})),
                       doctest::Contains("rank 2 is outside [0, 2)"), InvalidArgument);
  CHECK_THROWS_WITH_AS(detect_launch(flags, environment_of({{"SGNN_RANK", "0"}, {"SGNN_WORLD_SIZE", "2"}})),
                       doctest::Contains("needs a run id"), InvalidArgument);
}

TEST_CASE("launch: a rank's GPU is its local rank, or the one GPU the scheduler left visible") {
  CHECK(device_for_local_rank(3, 4) == 3);
  CHECK(device_for_local_rank(5, 1) == 0);
  CHECK_THROWS_WITH_AS(device_for_local_rank(4, 4), doctest::Contains("local rank 4 has no GPU of its own"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(device_for_local_rank(0, 0), doctest::Contains("no CUDA device"), InvalidArgument);
}
