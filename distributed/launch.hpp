// How this process joins a distributed run, from the command line and the
// environment:
//
//   Rendezvous  a rendezvous file is given (--rendezvous, else
//               $SGNN_RENDEZVOUS): the launcher-free mode (rendezvous.hpp).
//               Rank and world size from the flags, else $SGNN_RANK and
//               $SGNN_WORLD_SIZE, else SLURM's $SLURM_PROCID and
//               $SLURM_NTASKS; the local rank (which GPU) from the flag, else
//               $SGNN_LOCAL_RANK, else $SLURM_LOCALID, else the rank (all on
//               one host). The run id from the flag, else $SGNN_RUN_ID, else
//               "slurm-<$SLURM_JOB_ID>.<$SLURM_STEP_ID>"; required.
//   Mpi         started by an MPI launcher (mpirun/mpiexec: $OMPI_COMM_WORLD_SIZE,
//               $PMI_SIZE, $PMIX_RANK; srun --mpi=pmix): MpiSession gives the
//               rank, size and local rank.
//   Single      neither: one rank.
// InvalidArgument, naming the flag or variable: a rank outside [0, world
// size), a value that is not a number, rank flags without a rendezvous file,
// a rendezvous without rank, world size or run id, and srun tasks (several
// $SLURM_NTASKS) with neither MPI nor a rendezvous file (they would each
// train alone).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace sgnn::distributed {

enum class LaunchMode : unsigned char { Single, Mpi, Rendezvous };
const char* launch_mode_name(LaunchMode mode);  // "single", "mpi", "rendezvous"

struct LaunchFlags {  // from the command line; unset = not given
  std::optional<int> rank, world_size, local_rank;
  std::string rendezvous;
  std::string run_id;
};

struct Launch {
  LaunchMode mode = LaunchMode::Single;
  int rank = 0;         // Rendezvous only; Mpi: from MpiSession
  int world_size = 1;
  int local_rank = 0;
  std::string rendezvous;  // the file (Rendezvous)
  std::string run_id;      // (Rendezvous)
};

// The value of an environment variable, or nullopt when unset.
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment process_environment();  // getenv

Launch detect_launch(const LaunchFlags& flags, const Environment& environment);

// The CUDA device of a process with `local_rank` among the ranks of its host:
// 0 when one GPU is visible (the scheduler gave each process its own, e.g.
// srun --gpus-per-task=1), else `local_rank`. InvalidArgument when no GPU is
// visible or local_rank >= visible > 1 (more ranks on the host than GPUs).
int device_for_local_rank(int local_rank, int visible_devices);

}  // namespace sgnn::distributed
