#include <doctest/doctest.h>

#include <zlib.h>

#include "graph_io/section_file.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/support/testing.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::TempDir;

namespace {

SectionFile sample() {
  SectionFile file;
  file.kind = "checkpoint";
  file.kind_version = 3;
  file.fingerprint = 0x1234'5678'9abc'def0ull;
  file.metadata["epoch"] = "17";
  file.metadata["model"] = "gcn";
  file.add("weight", sgnn::testing::random_tensor({5, 7}, 1));
  file.add("steps", Tensor::from_vector(std::vector<int64_t>{1, 2, 3}, {3}));
  file.add("empty", Tensor::empty({0}, DType::Int32));
  file.add("scalar", Tensor::full({}, 2.5));
  return file;
}

std::string read_problem(const std::filesystem::path& path, std::string_view kind = "checkpoint", uint32_t version = 3) {
  try {
    read_section_file(path, kind, version);
  } catch (const IoError& error) {
    CHECK(error.file() == path.string());
    return error.reason();
  }
  FAIL("no IoError reading " << path);
  return "";
}

}  // namespace

TEST_CASE("section file round-trips tensors, metadata, kind and fingerprint") {
  TempDir dir;
  const SectionFile written = sample();
  write_section_file(dir / "sub/file.sgnn", written);
  const SectionFile read = read_section_file(dir / "sub/file.sgnn", "checkpoint", 3);
  CHECK(read.fingerprint == written.fingerprint);
  CHECK(read.metadata == written.metadata);
  CHECK(read.meta("epoch") == "17");
  REQUIRE(read.sections.size() == 4);
  CHECK(read.at("weight").shape() == Shape{5, 7});
  CHECK(read.at("weight").to_vector<float>() == written.at("weight").to_vector<float>());
  CHECK(read.at("steps").to_vector<int64_t>() == std::vector<int64_t>{1, 2, 3});
  CHECK(read.at("empty").numel() == 0);
  CHECK(read.at("scalar").item() == 2.5);
  CHECK_THROWS_WITH_AS(read.at("bias"), doctest::Contains("missing section \"bias\""), IoError);
  CHECK_THROWS_AS(read.meta("lr"), IoError);
  // No temporary file is left behind.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "sub")) files += entry.is_regular_file() ? 1 : 0;
  CHECK(files == 1);
}

TEST_CASE("section file round-trips bfloat16 tensors") {
  TempDir dir;
  SectionFile written;
  written.kind = "checkpoint";
  written.add("half", Tensor::full({3, 2}, -1.25, DType::BFloat16));
  write_section_file(dir / "half.sgnn", written);
  const SectionFile read = read_section_file(dir / "half.sgnn", "checkpoint", 1);
  CHECK(read.at("half").dtype() == DType::BFloat16);
  CHECK(read.at("half").shape() == Shape{3, 2});
  CHECK(read.at("half").to_vector<bfloat16>()[5].to_float() == -1.25f);
}

TEST_CASE("section file: every flipped byte is detected") {
  TempDir dir;
  write_section_file(dir / "f.sgnn", sample());
  const std::string good = sgnn::testing::read_bytes(dir / "f.sgnn");
  // Every header byte and a sample of payload bytes (padding bytes are not covered: they carry nothing).
  int detected = 0, tried = 0;
  for (std::size_t position = 0; position < good.size(); position += position < 400 ? 1 : 7) {
    std::string bad = good;
    bad[position] = static_cast<char>(bad[position] ^ 0x01);
    sgnn::testing::write_text(dir / "bad.sgnn", bad);
    ++tried;
    try {
      const SectionFile read = read_section_file(dir / "bad.sgnn", "checkpoint", 3);
      // Accepted: then the flipped byte must have been padding, and the data is unchanged.
      CHECK(read.at("weight").to_vector<float>() == sample().at("weight").to_vector<float>());
      CHECK(read.at("steps").to_vector<int64_t>() == std::vector<int64_t>{1, 2, 3});
    } catch (const IoError&) {
      ++detected;
    }
  }
  CHECK(detected > tried / 2);
}

TEST_CASE("section file: a corrupted payload byte names the section") {
  TempDir dir;
  write_section_file(dir / "f.sgnn", sample());
  std::string bytes = sgnn::testing::read_bytes(dir / "f.sgnn");
  // The last payload is "scalar" (4 bytes at the end of the file).
  bytes[bytes.size() - 2] = static_cast<char>(bytes[bytes.size() - 2] ^ 0x40);
  sgnn::testing::write_text(dir / "f.sgnn", bytes);
  CHECK(read_problem(dir / "f.sgnn").find("checksum mismatch in section \"scalar\"") != std::string::npos);
}

TEST_CASE("section file: truncation anywhere is detected") {
  TempDir dir;
  write_section_file(dir / "f.sgnn", sample());
  const std::string good = sgnn::testing::read_bytes(dir / "f.sgnn");
  for (std::size_t length : {std::size_t{0}, std::size_t{5}, std::size_t{30}, good.size() / 2, good.size() - 1}) {
    sgnn::testing::write_text(dir / "t.sgnn", good.substr(0, length));
    CHECK(read_problem(dir / "t.sgnn").find("truncated") != std::string::npos);
  }
}

TEST_CASE("section file: wrong kind, kind version, container version and foreign files are refused") {
  TempDir dir;
  write_section_file(dir / "f.sgnn", sample());
  CHECK(read_problem(dir / "f.sgnn", "adjacency-cache", 3).find("expected a \"adjacency-cache\"") != std::string::npos);
  CHECK(read_problem(dir / "f.sgnn", "checkpoint", 4).find("format version 3") != std::string::npos);
  std::string bytes = sgnn::testing::read_bytes(dir / "f.sgnn");
  bytes[8] = 2;  // container version
  sgnn::testing::write_text(dir / "v.sgnn", bytes);
  CHECK(read_problem(dir / "v.sgnn").find("section file version 2") != std::string::npos);
  sgnn::testing::write_text(dir / "x.sgnn", "this is not a section file, just text of some length");
  CHECK(read_problem(dir / "x.sgnn").find("bad magic") != std::string::npos);
  CHECK(read_problem(dir / "missing.sgnn").find("cannot open") != std::string::npos);
}

TEST_CASE("section file: a reader of several kind versions accepts each and refuses the rest") {
  TempDir dir;
  write_section_file(dir / "f.sgnn", sample());  // kind version 3
  CHECK(read_section_file(dir / "f.sgnn", "checkpoint", 1, 3).kind_version == 3);
  CHECK(read_section_file(dir / "f.sgnn", "checkpoint", 3, 5).kind_version == 3);
  CHECK_THROWS_WITH_AS(read_section_file(dir / "f.sgnn", "checkpoint", 1, 2),
                       doctest::Contains("checkpoint format version 3, this build reads versions 1 to 2"), IoError);
  CHECK_THROWS_WITH_AS(read_section_file(dir / "f.sgnn", "checkpoint", 4, 5),
                       doctest::Contains("this build reads versions 4 to 5"), IoError);
}

TEST_CASE("section file: bad arguments are refused before anything is written") {
  TempDir dir;
  SectionFile file = sample();
  file.add("weight", Tensor::zeros({1}));
  CHECK_THROWS_WITH_AS(write_section_file(dir / "f.sgnn", file), doctest::Contains("given twice"), InvalidArgument);
  file = sample();
  file.add("undefined", Tensor());
  CHECK_THROWS_AS(write_section_file(dir / "f.sgnn", file), InvalidArgument);
  file = sample();
  file.kind = "";
  CHECK_THROWS_AS(write_section_file(dir / "f.sgnn", file), InvalidArgument);
  CHECK_FALSE(std::filesystem::exists(dir / "f.sgnn"));
}

TEST_CASE("section file: rewriting replaces the old file, an unwritable place keeps it") {
  TempDir dir;
  write_section_file(dir / "f.sgnn", sample());
  SectionFile second = sample();
  second.metadata["epoch"] = "18";
  write_section_file(dir / "f.sgnn", second);
  CHECK(read_section_file(dir / "f.sgnn", "checkpoint", 3).meta("epoch") == "18");
  CHECK_THROWS_AS(write_section_file(dir / "f.sgnn" / "inside-a-file.sgnn", sample()), IoError);
  CHECK(read_section_file(dir / "f.sgnn", "checkpoint", 3).meta("epoch") == "18");
}

TEST_CASE("crc32_of matches zlib's value for a known string and is block-size independent") {
  const std::string text = "123456789";
  CHECK(crc32_of(text.data(), text.size()) == 0xCBF43926u);
  std::vector<unsigned char> big((std::size_t{1} << 25) + 12345);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
  // The parallel value equals zlib's single pass.
  const uint32_t single = static_cast<uint32_t>(crc32(0L, big.data(), static_cast<uInt>(big.size())));
  CHECK(crc32_of(big.data(), big.size()) == single);
}

TEST_CASE("map_section_file gives the same tensors as a read, checks headers, and leaves payload checks pending") {
  TempDir dir;
  write_section_file(dir / "f.sgnn", sample());
  SectionFile mapped = map_section_file(dir / "f.sgnn", "checkpoint", 3);
  CHECK(mapped.metadata == sample().metadata);
  CHECK(mapped.at("weight").to_vector<float>() == sample().at("weight").to_vector<float>());
  CHECK(mapped.at("steps").to_vector<int64_t>() == std::vector<int64_t>{1, 2, 3});
  CHECK(mapped.unverified_crc.size() == 4);
  mapped.verify_all();
  CHECK(mapped.unverified_crc.empty());
  // Header problems are found at once, as by a read.
  CHECK_THROWS_WITH_AS(map_section_file(dir / "f.sgnn", "adjacency-cache", 3), doctest::Contains("expected a"), IoError);
  const std::string good = sgnn::testing::read_bytes(dir / "f.sgnn");
  sgnn::testing::write_text(dir / "t.sgnn", good.substr(0, good.size() / 2));
  CHECK_THROWS_WITH_AS(map_section_file(dir / "t.sgnn", "checkpoint", 3), doctest::Contains("truncated"), IoError);
}

TEST_CASE("a damaged payload of a mapped file is caught by verify and by upload_checked, naming the section") {
  TempDir dir;
  write_section_file(dir / "f.sgnn", sample());
  std::string bytes = sgnn::testing::read_bytes(dir / "f.sgnn");
  bytes[bytes.size() - 2] = static_cast<char>(bytes[bytes.size() - 2] ^ 0x40);  // inside "scalar"
  sgnn::testing::write_text(dir / "f.sgnn", bytes);
  SectionFile mapped = map_section_file(dir / "f.sgnn", "checkpoint", 3);  // the header is intact
  mapped.verify("weight");
  CHECK_THROWS_WITH_AS(mapped.verify("scalar"), doctest::Contains("checksum mismatch in section \"scalar\""), IoError);
  CHECK_THROWS_WITH_AS(upload_sections(mapped, {"steps", "scalar"}, Device::cpu()),
                       doctest::Contains("checksum mismatch in section \"scalar\""), IoError);
  const std::vector<Tensor> good = upload_sections(mapped, {"steps"}, Device::cpu());
  CHECK(good[0].to_vector<int64_t>() == std::vector<int64_t>{1, 2, 3});
  CHECK_FALSE(mapped.unverified_crc.contains("steps"));
}

TEST_CASE("upload_checked: a wrong expected CRC is refused, a right one or none passes") {
  const Tensor data = sgnn::testing::random_tensor({1000, 3}, 5);
  const auto crc = crc32_of(data.raw_data(), data.nbytes());
  CHECK(upload_checked({{"data", data, crc}}, Device::cpu(), "file")[0].to_vector<float>() == data.to_vector<float>());
  CHECK(upload_checked({{"data", data, std::nullopt}}, Device::cpu(), "file").size() == 1);
  CHECK_THROWS_WITH_AS(upload_checked({{"data", data, crc ^ 1u}}, Device::cpu(), "file"),
                       doctest::Contains("checksum mismatch in section \"data\""), IoError);
}
