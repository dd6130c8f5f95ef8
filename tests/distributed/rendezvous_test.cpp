// The launcher-free mode's rendezvous file (rendezvous.hpp) on the real file
// system, with the ranks as threads and as separate processes: publish and
// join, a late rank 0, timeouts, a stale file of an earlier run, a file that
// is not a rendezvous file, and failure reports.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "core/error.hpp"
#include "distributed/rendezvous.hpp"
#include "tests/graph_io/temp_files.hpp"

using namespace sgnn;
using namespace sgnn::distributed;
using namespace std::chrono_literals;

namespace {

std::vector<uint8_t> id_bytes() {
  std::vector<uint8_t> bytes(128);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(255 - i);
  return bytes;
}

}  // namespace

TEST_CASE("rendezvous: rank 0 publishes, others join, also when rank 0 comes late") {
  const testing::TempDir folder;
  const auto file = folder.path() / "nested" / "run.rendezvous";
  const RendezvousKey key{"job-1", 3};
  std::vector<uint8_t> joined;
  std::thread late_rank_0([&] {
    std::this_thread::sleep_for(200ms);
    publish_rendezvous(file, key, id_bytes());
  });
  joined = wait_for_rendezvous(file, key, 20s, 10ms);
  late_rank_0.join();
  CHECK(joined == id_bytes());
  CHECK(wait_for_rendezvous(file, key, 1s) == id_bytes());  // a second joiner reads the same
  remove_rendezvous(file);
  CHECK_FALSE(std::filesystem::exists(file));
  remove_rendezvous(file);  // gone already: no error
}

TEST_CASE("rendezvous: separate processes join through the file") {
  const testing::TempDir folder;
  const auto file = folder.path() / "run.rendezvous";
  const RendezvousKey key{"job-2", 2};
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // rank 1: exit status 0 when it read rank 0's bytes
    int status = 3;
    try {
      status = wait_for_rendezvous(file, key, 20s, 10ms) == id_bytes() ? 0 : 1;
    } catch (...) {
      status = 2;
    }
    _exit(status);
  }
  std::this_thread::sleep_for(100ms);
  publish_rendezvous(file, key, id_bytes());
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("rendezvous: a stale file of another run is never read, and the timeout says what was found") {
  const testing::TempDir folder;
  const auto file = folder.path() / "run.rendezvous";
  publish_rendezvous(file, {"yesterday", 2}, {1, 2, 3});
  CHECK_THROWS_WITH_AS(wait_for_rendezvous(file, {"today", 2}, 150ms, 10ms),
                       doctest::Contains("it holds run id \"yesterday\" with 2 ranks (a file of an earlier run?)"),
                       IoError);
  CHECK_THROWS_WITH_AS(wait_for_rendezvous(file, {"yesterday", 4}, 150ms, 10ms), doctest::Contains("with 2 ranks"),
                       IoError);
  // Rank 0 of today's run replaces the stale file; the waiting rank takes the new one, not the old.
  std::thread rank_0([&] {
    std::this_thread::sleep_for(100ms);
    publish_rendezvous(file, {"today", 2}, {9});
  });
  CHECK(wait_for_rendezvous(file, {"today", 2}, 20s, 10ms) == std::vector<uint8_t>{9});
  rank_0.join();
  CHECK_THROWS_WITH_AS(wait_for_rendezvous(folder.path() / "absent", {"today", 2}, 100ms, 10ms),
                       doctest::Contains("the file never appeared"), IoError);
}

TEST_CASE("rendezvous: a file that is not a rendezvous file fails at once, not at the timeout") {
  const testing::TempDir folder;
  const auto file = folder.path() / "run.rendezvous";
  std::ofstream(file) << "not an id";
  // At once: the file's own error, not the timeout's ("did not publish ... within"),
  // which a waiter that retried unreadable files would end with.
  std::string message;
  try {
    (void)wait_for_rendezvous(file, {"job", 2}, 30s, 10ms);
  } catch (const IoError& error) {
    message = error.what();
  }
  CHECK_FALSE(message.empty());
  CHECK(message.find("did not publish") == std::string::npos);
  CHECK_THROWS_WITH_AS(publish_rendezvous(file, {"", 2}, {}), doctest::Contains("run id is empty"), InvalidArgument);
}

TEST_CASE("rendezvous: failure reports name the rank and reason, for this run only") {
  const testing::TempDir folder;
  const auto file = folder.path() / "run.rendezvous";
  const RendezvousKey key{"job-3", 4};
  CHECK_FALSE(find_rank_failure(file, key, 0).has_value());
  CHECK(report_rank_failure(file, {"another-job", 4}, 1, "old failure"));
  CHECK_FALSE(find_rank_failure(file, key, 0).has_value());
  CHECK(report_rank_failure(file, key, 2, "part-2-of-4.sgnn: corrupt"));
  const std::optional<RankFailure> failure = find_rank_failure(file, key, 0);
  REQUIRE(failure.has_value());
  CHECK(failure->rank == 2);
  CHECK(failure->reason == "part-2-of-4.sgnn: corrupt");
  CHECK_FALSE(find_rank_failure(file, key, 2).has_value());  // its own report is not news to rank 2
  std::ofstream(folder.path() / "a-file") << "x";  // a folder path through a file cannot be created
  CHECK_FALSE(report_rank_failure(folder.path() / "a-file" / "run.rendezvous", key, 0, "unwritable"));
}
