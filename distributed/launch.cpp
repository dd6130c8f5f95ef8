#include "distributed/launch.hpp"

#include <charconv>
#include <cstdlib>

#include "core/error.hpp"

namespace sgnn::distributed {

namespace {

// The flag's value, else the first variable that is set, parsed as an integer; nullopt when none is.
std::optional<int> integer_from(const std::optional<int>& flag, const char* flag_name,
                                std::initializer_list<const char*> variables, const Environment& environment) {
  if (flag) return flag;
  for (const char* variable : variables) {
    const std::optional<std::string> text = environment(variable);
    if (!text) continue;
    int value = 0;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
    SGNN_CHECK(error == std::errc() && end == text->data() + text->size() && !text->empty(), "$", variable, " is \"",
               *text, "\", not an integer (used for ", flag_name, ")");
    return value;
  }
  return std::nullopt;
}

std::string text_from(const std::string& flag, std::initializer_list<const char*> variables,
                      const Environment& environment) {
  if (!flag.empty()) return flag;
  for (const char* variable : variables) {
    if (const std::optional<std::string> text = environment(variable); text && !text->empty()) return *text;
  }
  return "";
}

bool started_by_mpi(const Environment& environment) {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (environment(variable)) return true;
  }
  return false;
}

}  // namespace

const char* launch_mode_name(LaunchMode mode) {
  switch (mode) {
    case LaunchMode::Single: return "single";
    case LaunchMode::Mpi: return "mpi";
    case LaunchMode::Rendezvous: return "rendezvous";
  }
  return "unknown";
}

Environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
  };
}

Launch detect_launch(const LaunchFlags& flags, const Environment& environment) {
  Launch launch;
  launch.rendezvous = text_from(flags.rendezvous, {"SGNN_RENDEZVOUS"}, environment);
  if (launch.rendezvous.empty()) {
    SGNN_CHECK(!flags.rank && !flags.world_size && !flags.local_rank && flags.run_id.empty(),
               "--rank, --world-size, --local-rank and --run-id belong to the launcher-free mode: give the shared "
               "rendezvous file too (--rendezvous FILE), or start the ranks with mpirun");
    if (started_by_mpi(environment)) {
      launch.mode = LaunchMode::Mpi;
      return launch;
    }
    const std::optional<int> tasks = integer_from(std::nullopt, "the task count", {"SLURM_NTASKS"}, environment);
    SGNN_CHECK(!tasks || *tasks <= 1, "started by srun as one of ", *tasks,
               " tasks without MPI: give every task the same --rendezvous FILE (launcher-free mode) or start with "
               "srun --mpi=pmix, else each task would train alone");
    return launch;
  }
  launch.mode = LaunchMode::Rendezvous;
  const std::optional<int> world_size =
      integer_from(flags.world_size, "--world-size", {"SGNN_WORLD_SIZE", "SLURM_NTASKS"}, environment);
  const std::optional<int> rank = integer_from(flags.rank, "--rank", {"SGNN_RANK", "SLURM_PROCID"}, environment);
  SGNN_CHECK(world_size && rank, "the launcher-free mode (rendezvous file ", launch.rendezvous,
             ") needs this process's rank and the world size: --rank and --world-size, $SGNN_RANK and "
             "$SGNN_WORLD_SIZE, or SLURM's $SLURM_PROCID and $SLURM_NTASKS");
  SGNN_CHECK(*world_size >= 1, "the world size must be at least 1, got ", *world_size);
  SGNN_CHECK(*rank >= 0 && *rank < *world_size, "rank ", *rank, " is outside [0, ", *world_size, ")");
  launch.world_size = *world_size;
  launch.rank = *rank;
  launch.local_rank =
      integer_from(flags.local_rank, "--local-rank", {"SGNN_LOCAL_RANK", "SLURM_LOCALID"}, environment).value_or(*rank);
  SGNN_CHECK(launch.local_rank >= 0, "the local rank must be non-negative, got ", launch.local_rank);
  launch.run_id = text_from(flags.run_id, {"SGNN_RUN_ID"}, environment);
  if (launch.run_id.empty()) {
    const std::string job = text_from("", {"SLURM_JOB_ID"}, environment);
    if (!job.empty()) launch.run_id = "slurm-" + job + "." + text_from("", {"SLURM_STEP_ID"}, environment);
  }
  SGNN_CHECK(!launch.run_id.empty(), "the launcher-free mode needs a run id shared by every rank of this start "
             "(--run-id or $SGNN_RUN_ID; under SLURM the job and step ids), so that a rendezvous file left by an "
             "earlier run is never read");
  return launch;
}

int device_for_local_rank(int local_rank, int visible_devices) {
  SGNN_CHECK(visible_devices >= 1, "no CUDA device is visible to this process (CUDA_VISIBLE_DEVICES?)");
  if (visible_devices == 1) return 0;
  SGNN_CHECK(local_rank >= 0 && local_rank < visible_devices, "local rank ", local_rank, " has no GPU of its own: ",
             visible_devices, " are visible on this host (start at most one rank per GPU)");
  return local_rank;
}

}  // namespace sgnn::distributed
