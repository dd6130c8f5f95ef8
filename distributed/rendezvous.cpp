#include "distributed/rendezvous.hpp"

#include <thread>

#include "core/error.hpp"
#include "graph_io/section_file.hpp"

namespace sgnn::distributed {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kKind = "rendezvous";
constexpr const char* kFailureKind = "rank-failure";
constexpr uint32_t kKindVersion = 1;

void check_key(const RendezvousKey& key) {
  SGNN_CHECK(!key.run_id.empty(), "rendezvous: the run id is empty");
  SGNN_CHECK(key.world_size >= 1, "rendezvous: the world size must be at least 1, got ", key.world_size);
}

graph_io::SectionFile keyed_file(const char* kind, const RendezvousKey& key) {
  graph_io::SectionFile file;
  file.kind = kind;
  file.kind_version = kKindVersion;
  file.metadata = {{"run_id", key.run_id}, {"world_size", std::to_string(key.world_size)}};
  return file;
}

// "" when `file` is for `key`, else what it is for.
std::string other_run(const graph_io::SectionFile& file, const RendezvousKey& key) {
  const std::string& run_id = file.meta("run_id");
  const std::string& world_size = file.meta("world_size");
  if (run_id == key.run_id && world_size == std::to_string(key.world_size)) return "";
  return detail::concat("run id \"", run_id, "\" with ", world_size, " ranks");
}

fs::path failure_path(const fs::path& file, int rank) {
  return fs::path(file).concat(detail::concat(".failed-", rank));
}

}  // namespace

void publish_rendezvous(const fs::path& file, const RendezvousKey& key, const std::vector<uint8_t>& payload) {
  check_key(key);
  graph_io::SectionFile contents = keyed_file(kKind, key);
  const std::vector<int32_t> bytes(payload.begin(), payload.end());
  contents.add("payload", Tensor::from_vector(bytes, {static_cast<int64_t>(bytes.size())}));
  graph_io::write_section_file(file, contents);
}

std::vector<uint8_t> wait_for_rendezvous(const fs::path& file, const RendezvousKey& key,
                                         std::chrono::milliseconds timeout, std::chrono::milliseconds poll) {
  check_key(key);
  const Clock::time_point deadline = Clock::now() + timeout;
  std::string seen = "the file never appeared";
  while (true) {
    std::error_code error;
    if (fs::exists(file, error)) {
      const graph_io::SectionFile contents = graph_io::read_section_file(file, kKind, kKindVersion);
      const std::string other = other_run(contents, key);
      if (other.empty()) {
        const Tensor& payload = contents.at("payload");
        std::vector<uint8_t> bytes;
        for (const int32_t byte : payload.to_vector<int32_t>()) {
          if (byte < 0 || byte > 255) throw IoError(file.string(), 0, "the payload holds a value that is not a byte");
          bytes.push_back(static_cast<uint8_t>(byte));
        }
        return bytes;
      }
      seen = "it holds " + other + " (a file of an earlier run?)";
    }
    if (Clock::now() >= deadline) {
      throw IoError(file.string(), 0,
                    detail::concat("rank 0 did not publish run \"", key.run_id, "\" of ", key.world_size, " ranks within ",
                                   static_cast<double>(timeout.count()) / 1000.0, " s: ", seen,
                                   ". Is rank 0 running, and does every rank see the same file?"));
    }
    std::this_thread::sleep_for(poll);
  }
}

void remove_rendezvous(const fs::path& file) {
  std::error_code error;
  fs::remove(file, error);
}

bool report_rank_failure(const fs::path& file, const RendezvousKey& key, int rank, const std::string& reason) {
  try {
    graph_io::SectionFile contents = keyed_file(kFailureKind, key);
    contents.metadata["rank"] = std::to_string(rank);
    contents.metadata["reason"] = reason;
    graph_io::write_section_file(failure_path(file, rank), contents);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::optional<RankFailure> find_rank_failure(const fs::path& file, const RendezvousKey& key, int self) {
  for (int rank = 0; rank < key.world_size; ++rank) {
    if (rank == self) continue;
    const fs::path path = failure_path(file, rank);
    std::error_code error;
    if (!fs::exists(path, error)) continue;
    try {
      const graph_io::SectionFile contents = graph_io::read_section_file(path, kFailureKind, kKindVersion);
      if (other_run(contents, key).empty()) return RankFailure{rank, contents.meta("reason")};
    } catch (const std::exception&) {
      continue;  // unreadable: not a report of this run
    }
  }
  return std::nullopt;
}

}  // namespace sgnn::distributed
