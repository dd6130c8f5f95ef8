// A writer SIGKILLed in the middle of a checkpoint or adjacency-cache write
// (tests/tools/section_writer.cpp, a separate process) leaves the old file
// intact and loadable bit-identically; the partial temporary file it leaves
// behind is never read in place of the real one, and if someone renamed it
// into place anyway, loading it is refused as truncated/corrupt.
#include <doctest/doctest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "graph_io/adjacency_cache.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/section_file.hpp"
#include "tests/graph_io/adjacency_equality.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/write_victim.hpp"
#include "training/checkpoint.hpp"

extern char** environ;

using namespace sgnn;
using namespace sgnn::testing;
namespace fs = std::filesystem;

namespace {

std::string file_bytes(const fs::path& file) {
  std::string bytes(static_cast<std::size_t>(fs::file_size(file)), '\0');
  std::ifstream in(file, std::ios::binary);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(in.gcount() == static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

pid_t start_writer(const std::string& kind, const fs::path& target, int64_t size) {
  const std::string program = SGNN_SECTION_WRITER;
  const std::string path = target.string();
  const std::string size_text = std::to_string(size);
  std::vector<char*> argv{const_cast<char*>(program.c_str()), const_cast<char*>(kind.c_str()),
                          const_cast<char*>(path.c_str()), const_cast<char*>(size_text.c_str()), nullptr};
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(), environ) == 0);
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    REQUIRE(errno == EINTR);
  }
  return status;
}

// The writer's temporary files next to `target` (section_file.cpp names them <target>.tmp-<pid>-<n>).
std::vector<fs::path> temporaries_of(const fs::path& target) {
  std::vector<fs::path> found;
  const std::string prefix = target.filename().string() + ".tmp-";
  for (const auto& entry : fs::directory_iterator(target.parent_path())) {
    if (entry.path().filename().string().starts_with(prefix)) found.push_back(entry.path());
  }
  return found;
}

struct KillOutcome {
  bool killed_mid_write = false;  // false: the writer finished (or renamed) before the kill landed
  fs::path partial;
  std::uintmax_t partial_bytes = 0;
};

// Starts the writer and SIGKILLs it once its temporary file holds `kill_after` bytes.
KillOutcome kill_writer_mid_way(const std::string& kind, const fs::path& target, int64_t size,
                                std::uintmax_t kill_after) {
  const pid_t pid = start_writer(kind, target, size);
  KillOutcome outcome;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code error;
    bool seen = false;
    for (const fs::path& temporary : temporaries_of(target)) {
      if (fs::file_size(temporary, error) >= kill_after && !error) seen = true;
    }
    if (seen) {
      ::kill(pid, SIGKILL);
      break;
    }
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return outcome;  // finished before we saw it
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  const int status = wait_for(pid);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  const std::vector<fs::path> left = temporaries_of(target);
  if (left.size() == 1) {
    outcome.killed_mid_write = true;
    outcome.partial = left.front();
    outcome.partial_bytes = fs::file_size(left.front());
  }
  return outcome;
}

// The bytes of a complete write of the same content (the writer run to the end).
std::uintmax_t complete_size(const std::string& kind, const fs::path& folder, int64_t size) {
  const fs::path full = folder / ("complete-" + kind);
  const int status = wait_for(start_writer(kind, full, size));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  const std::uintmax_t bytes = fs::file_size(full);
  fs::remove(full);
  return bytes;
}

constexpr std::uintmax_t kKillAfter = std::uintmax_t{1} << 20;
constexpr int kAttempts = 5;

}  // namespace

TEST_CASE("a checkpoint writer killed mid-write leaves the old checkpoint intact") {
  TempDir folder;
  const fs::path path = folder / "model.ckpt";
  constexpr int64_t kOldFeatures = 40;
  constexpr int64_t kNewFeatures = int64_t{1} << 19;  // ~100 MiB with Adam's moments
  const std::uintmax_t full_bytes = complete_size("checkpoint", folder.path(), kNewFeatures);

  bool caught = false;
  for (int attempt = 0; attempt < kAttempts && !caught; ++attempt) {
    Generator generator(11);
    const auto old_model = victim_model(kOldFeatures, generator);
    training::Adam old_optimizer(old_model->parameter_groups(5e-4f), ops::AdamHyperparameters{});
    training::save_checkpoint(path, *old_model, old_optimizer, training::TrainingState{}, generator);
    const std::string old_bytes = file_bytes(path);

    const KillOutcome outcome = kill_writer_mid_way("checkpoint", path, kNewFeatures, kKillAfter);
    if (!outcome.killed_mid_write) continue;  // too late: the new file is in place; try again
    caught = true;
    CHECK(file_bytes(path) == old_bytes);
    // Loads (checksums verified), and gives back exactly the old parameters.
    const graph_io::SectionFile contents = graph_io::read_section_file(path, "checkpoint", training::kCheckpointVersion);
    for (const auto& [name, parameter] : old_model->named_parameters()) {
      CAPTURE(name);
      REQUIRE(contents.has("param." + name));
      CHECK(contents.at("param." + name).to_vector<float>() == parameter.to_vector<float>());
    }
    // The partial file is partial, and refused if renamed into place.
    CHECK(outcome.partial_bytes >= kKillAfter);
    if (outcome.partial_bytes < full_bytes) {
      const fs::path renamed = folder / "renamed.ckpt";
      fs::rename(outcome.partial, renamed);
      CHECK_THROWS_AS(graph_io::read_section_file(renamed, "checkpoint", training::kCheckpointVersion), IoError);
    }
  }
  CHECK(caught);
}

TEST_CASE("an adjacency-cache writer killed mid-write leaves the old cache intact") {
  TempDir folder;
  const fs::path path = folder / "adjacency-0000000000000001.sgnn";
  constexpr int64_t kNewNodes = int64_t{1} << 22;  // ~80 MiB of patterns
  const std::uintmax_t full_bytes = complete_size("cache", folder.path(), kNewNodes);

  bool caught = false;
  for (int attempt = 0; attempt < kAttempts && !caught; ++attempt) {
    graph_io::CachedAdjacency old;
    old.adjacency = victim_ring(1000);
    graph_io::store_adjacency_cache(path, 1, old);
    const std::string old_bytes = file_bytes(path);
    // The cache derives row orders and values on load, so the reference is
    // the old file as loaded before the kill, not the ring itself.
    std::string problem;
    const std::optional<graph_io::CachedAdjacency> before = graph_io::load_adjacency_cache(path, 1, problem);
    REQUIRE(before.has_value());

    const KillOutcome outcome = kill_writer_mid_way("cache", path, kNewNodes, kKillAfter);
    if (!outcome.killed_mid_write) continue;
    caught = true;
    CHECK(file_bytes(path) == old_bytes);
    const std::optional<graph_io::CachedAdjacency> loaded = graph_io::load_adjacency_cache(path, 1, problem);
    REQUIRE(loaded.has_value());
    CHECK(problem.empty());
    check_same_adjacency(loaded->adjacency, before->adjacency);
    CHECK(as_int64(loaded->adjacency.csr.indices) == as_int64(old.adjacency.csr.indices));
    CHECK(outcome.partial_bytes >= kKillAfter);
    if (outcome.partial_bytes < full_bytes) {
      // Renamed into place, the partial file is refused (and make_graph would rebuild).
      fs::rename(outcome.partial, path);
      CHECK_FALSE(graph_io::load_adjacency_cache(path, 1, problem).has_value());
      CHECK_FALSE(problem.empty());
    }
  }
  CHECK(caught);
}
