// File rendezvous of the launcher-free mode: ranks started without MPI (srun
// without an MPI plugin, a shell loop, a job array) share a file path on a
// file system all of them see. Rank 0 publishes what the others need to join
// (the NCCL unique id) by writing the file atomically; the others poll until
// it appears for their run, or time out.
//
// Files are section files (kind "rendezvous") holding the run id, the world
// size and the payload. A run id names one start of the job (SLURM's job and
// step ids, or one the user gives every rank): a file of another run or world
// size (left by an earlier job) is never read; the others keep waiting for
// rank 0's and say what they found when they time out. A file that is not a
// rendezvous file, or is corrupt, is an IoError at once (writes are atomic,
// so a file in place is complete).
//
// Failure reports: a rank that fails writes <file>.failed-<rank> with its
// reason; the other ranks' watchdogs (watchdog.hpp) look for them, so every
// rank exits naming the failed rank and why, not only the one that failed.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sgnn::distributed {

struct RendezvousKey {
  std::string run_id;  // non-empty
  int world_size = 1;
};

// Rank 0: writes `payload` for `key` to `file` atomically (parent folders
// created). IoError when it cannot be written.
void publish_rendezvous(const std::filesystem::path& file, const RendezvousKey& key,
                        const std::vector<uint8_t>& payload);

// The other ranks: polls `file` every `poll` until it holds `key`'s payload.
// IoError when `timeout` passes first (saying whether the file was missing or
// of another run) or when the file is not a readable rendezvous file.
std::vector<uint8_t> wait_for_rendezvous(const std::filesystem::path& file, const RendezvousKey& key,
                                         std::chrono::milliseconds timeout,
                                         std::chrono::milliseconds poll = std::chrono::milliseconds(50));

// Removes `file` (after every rank has joined); no error when it is gone.
void remove_rendezvous(const std::filesystem::path& file);

struct RankFailure {
  int rank = 0;
  std::string reason;
};

// Writes `rank`'s failure report next to `file` (best effort: a failure to
// write is returned as false, never thrown, since the caller is failing already).
bool report_rank_failure(const std::filesystem::path& file, const RendezvousKey& key, int rank,
                         const std::string& reason);

// The failure report of the lowest rank other than `self` for `key` next to
// `file`, if any (reports of other runs and unreadable ones are skipped).
std::optional<RankFailure> find_rank_failure(const std::filesystem::path& file, const RendezvousKey& key, int self);

}  // namespace sgnn::distributed
