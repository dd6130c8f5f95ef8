// graph_io::download_file and sha256_file against a real HTTP server on
// 127.0.0.1 (tests/tools/range_server.py): whole files, a transfer cut short
// and resumed with a Range request, a stale part the server cannot continue,
// 404, connection refused.
#include <doctest/doctest.h>

#include <string>

#include "core/error.hpp"
#include "fetch/download.hpp"
#include "fetch/sha256.hpp"
#include "tests/fetch/local_http_server.hpp"
#include "tests/graph_io/temp_files.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::LocalHttpServer;
using sgnn::testing::TempDir;

namespace {

// 300 kB of bytes that differ along the file, so a misplaced part shows.
std::string sample_bytes() {
  std::string bytes(300000, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 2654435761u) >> 11);
  return bytes;
}

}  // namespace

TEST_CASE("sha256_file gives the published digests of known inputs") {
  TempDir dir;
  sgnn::testing::write_text(dir / "empty", "");
  sgnn::testing::write_text(dir / "abc", "abc");
  CHECK(sha256_file(dir / "empty") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_file(dir / "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK_THROWS_WITH_AS(sha256_file(dir / "missing"), doctest::Contains("missing"), IoError);
}

TEST_CASE("download_file fetches a whole file and reports progress up to its size") {
  TempDir dir;
  const std::string bytes = sample_bytes();
  sgnn::testing::write_text(dir / "served" / "data.bin", bytes);
  LocalHttpServer server(dir / "served");
  DownloadOptions options;
  DownloadProgress last;
  int calls = 0;
  options.on_progress = [&](const DownloadProgress& progress) {
    last = progress;
    ++calls;
  };
  const DownloadResult result = download_file(server.url("data.bin"), dir / "data.part", options);
  CHECK(result.size == static_cast<int64_t>(bytes.size()));
  CHECK(result.received == static_cast<int64_t>(bytes.size()));
  CHECK(sgnn::testing::read_bytes(dir / "data.part") == bytes);
  CHECK(calls > 0);
  CHECK(last.received == static_cast<int64_t>(bytes.size()));
  CHECK(last.total == static_cast<int64_t>(bytes.size()));
  CHECK(last.resumed_from == 0);
}

TEST_CASE("a transfer cut short keeps its part, and the next call resumes it with a Range request") {
  TempDir dir;
  const std::string bytes = sample_bytes();
  sgnn::testing::write_text(dir / "served" / "data.bin", bytes);
  LocalHttpServer server(dir / "served", {"--cut-after", "100000"});
  const auto part = dir / "data.part";
  CHECK_THROWS_WITH_AS(download_file(server.url("data.bin"), part), doctest::Contains("cut short after 100000"),
                       IoError);
  REQUIRE(std::filesystem::file_size(part) == 100000);
  DownloadProgress last;
  DownloadOptions options;
  options.on_progress = [&](const DownloadProgress& progress) { last = progress; };
  const DownloadResult result = download_file(server.url("data.bin"), part, options);
  CHECK(result.size == static_cast<int64_t>(bytes.size()));
  CHECK(result.received == static_cast<int64_t>(bytes.size()) - 100000);
  CHECK(sgnn::testing::read_bytes(part) == bytes);
  CHECK(last.resumed_from == 100000);
  CHECK(last.total == static_cast<int64_t>(bytes.size()));
  CHECK(server.log() == "/data.bin -\n/data.bin bytes=100000-\n");
}

TEST_CASE("a part longer than the file (416) makes the download start over") {
  TempDir dir;
  const std::string bytes = sample_bytes();
  sgnn::testing::write_text(dir / "served" / "data.bin", bytes);
  sgnn::testing::write_text(dir / "data.part", std::string(bytes.size() + 10, 'x'));
  LocalHttpServer server(dir / "served");
  const DownloadResult result = download_file(server.url("data.bin"), dir / "data.part");
  CHECK(result.size == static_cast<int64_t>(bytes.size()));
  CHECK(result.received == static_cast<int64_t>(bytes.size()));
  CHECK(sgnn::testing::read_bytes(dir / "data.part") == bytes);
  CHECK(server.log() == "/data.bin bytes=300010-\n/data.bin -\n");
}

TEST_CASE("404 and a refused connection throw IoError naming the URL and leave no part file") {
  TempDir dir;
  sgnn::testing::write_text(dir / "served" / "present.bin", "x");
  LocalHttpServer server(dir / "served");
  const std::string missing = server.url("missing.bin");
  CHECK_THROWS_WITH_AS(download_file(missing, dir / "missing.part"),
                       doctest::Contains((missing + ": HTTP 404 (not found)").c_str()), IoError);
  CHECK_FALSE(std::filesystem::exists(dir / "missing.part"));

  const std::string refused = "http://127.0.0.1:" + std::to_string(sgnn::testing::closed_local_port()) + "/x.bin";
  CHECK_THROWS_WITH_AS(download_file(refused, dir / "refused.part"), doctest::Contains("onnect"), IoError);
  CHECK_FALSE(std::filesystem::exists(dir / "refused.part"));

  CHECK_THROWS_WITH_AS(download_file("ftp://127.0.0.1/x", dir / "ftp.part"), doctest::Contains("ftp"), IoError);
  CHECK_THROWS_WITH_AS(download_file(server.url("present.bin"), dir / "no-such-folder" / "x.part"),
                       doctest::Contains("cannot open for writing"), IoError);
}
