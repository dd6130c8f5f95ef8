// graph_io::unpack_zip: what an OGB zip holds comes out byte for byte; an
// entry that would land outside the target, a link, a corrupt archive or an
// existing target is refused and leaves nothing behind.
#include <doctest/doctest.h>

#include <string>

#include "core/error.hpp"
#include "fetch/archive.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/fetch/zip_files.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::TempDir;
using sgnn::testing::ZipEntry;

namespace {

std::string lines(int count) {
  std::string text;
  for (int i = 0; i < count; ++i) text += std::to_string(i) + "," + std::to_string(i * 7 % 101) + "\n";
  return text;
}

}  // namespace

TEST_CASE("unpack_zip writes every file and folder of the archive under the target") {
  TempDir dir;
  const std::string edges = lines(5000);
  sgnn::testing::write_zip(dir / "arxiv.zip", {{"arxiv/", "", ZipEntry::Kind::Folder},
                                               {"arxiv/raw/edge.csv", edges},
                                               {"arxiv/split/time/train.csv", "0\n1\n"},
                                               {"arxiv/./RELEASE_v1.txt", ""},
                                               {"arxiv/mapping/", "", ZipEntry::Kind::Folder}});
  CHECK(unpack_zip(dir / "arxiv.zip", dir / "out") == 3);
  CHECK(sgnn::testing::read_bytes(dir / "out" / "arxiv" / "raw" / "edge.csv") == edges);
  CHECK(sgnn::testing::read_bytes(dir / "out" / "arxiv" / "split" / "time" / "train.csv") == "0\n1\n");
  CHECK(std::filesystem::file_size(dir / "out" / "arxiv" / "RELEASE_v1.txt") == 0);
  CHECK(std::filesystem::is_directory(dir / "out" / "arxiv" / "mapping"));
}

TEST_CASE("unpack_zip refuses entries that escape the target and removes what it unpacked") {
  TempDir dir;
  struct Case {
    const char* what;
    ZipEntry bad;
    const char* message;
  };
  const Case cases[] = {
      {"a ../ path", {"data/../../escaped.txt", "evil"}, "escapes the target folder"},
      {"a leading ../", {"../escaped.txt", "evil"}, "escapes the target folder"},
      {"an absolute path", {(dir / "escaped.txt").string(), "evil"}, "absolute path"},
      {"a symbolic link", {"data/link", "/etc/passwd", ZipEntry::Kind::Symlink}, "is a link"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    std::filesystem::remove(dir / "bad.zip");
    sgnn::testing::write_zip(dir / "bad.zip", {{"data/good.txt", "fine"}, c.bad});
    CHECK_THROWS_WITH_AS(unpack_zip(dir / "bad.zip", dir / "out"), doctest::Contains(c.message), IoError);
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
    CHECK_FALSE(std::filesystem::exists(dir / "escaped.txt"));
    CHECK_FALSE(std::filesystem::exists(dir.path().parent_path() / "escaped.txt"));
  }
}

TEST_CASE("unpack_zip detects a corrupt entry by its CRC, and refuses a non-zip and an existing target") {
  TempDir dir;
  const std::string contents = lines(2000);
  sgnn::testing::write_zip(dir / "stored.zip", {{"raw/edge.csv", contents}}, /*store=*/true);
  std::string archive = sgnn::testing::read_bytes(dir / "stored.zip");
  const std::size_t at = archive.find(contents.substr(0, 200));
  REQUIRE(at != std::string::npos);
  archive[at + 1000] = static_cast<char>(archive[at + 1000] ^ 0x20);  // one flipped bit in the stored data
  sgnn::testing::write_text(dir / "corrupt.zip", archive);
  CHECK_THROWS_WITH_AS(unpack_zip(dir / "corrupt.zip", dir / "out"), doctest::Contains("raw/edge.csv"), IoError);
  CHECK_FALSE(std::filesystem::exists(dir / "out"));

  sgnn::testing::write_text(dir / "not.zip", "this is not an archive\n");
  CHECK_THROWS_AS(unpack_zip(dir / "not.zip", dir / "out"), IoError);
  CHECK_FALSE(std::filesystem::exists(dir / "out"));

  std::filesystem::create_directory(dir / "existing");
  CHECK_THROWS_WITH_AS(unpack_zip(dir / "stored.zip", dir / "existing"), doctest::Contains("already exists"), IoError);
  CHECK(std::filesystem::is_empty(dir / "existing"));
  CHECK(unpack_zip(dir / "stored.zip", dir / "out") == 1);
  CHECK(sgnn::testing::read_bytes(dir / "out" / "raw" / "edge.csv") == contents);
}
