#include <doctest/doctest.h>

#include <map>

#include "graph_io/load_dataset.hpp"
#include "graph_io/readers/ogb_reader.hpp"
#include "tests/graph_io/temp_files.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::TempDir;
using sgnn::testing::ScopedEnvironment;

namespace {

// A valid 4-node dataset; `changes` replaces a file's text ("" in the value
// with key prefixed '-' deletes it). Files are gzip-compressed unless plain.
using Files = std::map<std::string, std::string>;

Files good_files() {
  return {{"raw/num-node-list.csv", "4\n"},
          {"raw/num-edge-list.csv", "5\n"},
          {"raw/edge.csv", "0,1\n1,0\n1,2\n2,3\n3,0\n"},
          {"raw/node-feat.csv", "1,0,0.5\n0,1,2\n-1.5,0,0\n0,0,1e-3\n"},
          {"raw/node-label.csv", "0\n2\n1\n2\n"},
          {"raw/split/train.csv", "0\n1\n"},
          {"raw/split/valid.csv", "2\n"},
          {"raw/split/test.csv", "3\n"}};
}

void write_dataset(const std::filesystem::path& root, const Files& files, bool gzip = true) {
  for (const auto& [name, text] : files) {
    if (gzip) sgnn::testing::write_gzip(root / (name + ".gz"), text);
    else sgnn::testing::write_text(root / name, text);
  }
}

// The IoError that reading `dir` throws (the test fails when none is thrown).
IoError error_reading(const std::filesystem::path& dir) {
  try {
    read_ogb_dataset(dir);
  } catch (const IoError& error) {
    return error;
  }
  FAIL("no IoError reading " << dir);
  return IoError("", 0, "");
}

// Reads a dataset made of good_files() with one file's text replaced.
IoError error_with(const std::string& file, const std::string& text) {
  TempDir dir;
  Files files = good_files();
  files[file] = text;
  write_dataset(dir.path(), files);
  return error_reading(dir.path());
}

void check_error(const IoError& error, const std::string& file_suffix, int64_t line, const std::string& reason_part) {
  INFO(error.what());
  CHECK(error.file().ends_with(file_suffix));
  CHECK(error.line() == line);
  CHECK(error.reason().find(reason_part) != std::string::npos);
}

}  // namespace

TEST_CASE("OGB reader reads a small dataset, gzip and plain alike") {
  for (const bool gzip : {true, false}) {
    TempDir dir;
    write_dataset(dir.path(), good_files(), gzip);
    const Dataset d = read_ogb_dataset(dir.path());
    CHECK(d.num_nodes() == 4);
    CHECK(d.edges.source.to_vector<int32_t>() == std::vector<int32_t>{0, 1, 1, 2, 3});
    CHECK(d.edges.target.to_vector<int32_t>() == std::vector<int32_t>{1, 0, 2, 3, 0});
    CHECK_FALSE(d.edges.weight.defined());
    CHECK(d.features.shape() == Shape{4, 3});
    CHECK(d.features.to_vector<float>() ==
          std::vector<float>{1, 0, 0.5f, 0, 1, 2, -1.5f, 0, 0, 0, 0, 1e-3f});
    CHECK(d.labels.to_vector<int32_t>() == std::vector<int32_t>{0, 2, 1, 2});
    CHECK(d.num_classes == 3);
    CHECK(d.train_index.to_vector<int32_t>() == std::vector<int32_t>{0, 1});
    CHECK(d.valid_index.to_vector<int32_t>() == std::vector<int32_t>{2});
    CHECK(d.test_index.to_vector<int32_t>() == std::vector<int32_t>{3});
    d.edges.validate();
  }
}

TEST_CASE("OGB reader accepts CRLF line ends, no final newline, and the raw/ folder itself") {
  TempDir dir;
  Files files = good_files();
  files["raw/edge.csv"] = "0,1\r\n1,0\r\n1,2\r\n2,3\r\n3,0";
  write_dataset(dir.path(), files);
  CHECK(read_ogb_dataset(dir / "raw").edges.num_edges() == 5);
  CHECK(read_ogb_dataset(dir.path()).edges.target.to_vector<int32_t>() == std::vector<int32_t>{1, 0, 2, 3, 0});
}

TEST_CASE("OGB reader finds OGB's split/<type>/ folder") {
  TempDir dir;
  Files files = good_files();
  for (const char* s : {"train", "valid", "test"}) {
    files[std::string("split/time/") + s + ".csv"] = files[std::string("raw/split/") + s + ".csv"];
    files.erase(std::string("raw/split/") + s + ".csv");
  }
  write_dataset(dir.path(), files);
  CHECK(read_ogb_dataset(dir.path()).valid_index.to_vector<int32_t>() == std::vector<int32_t>{2});
}

TEST_CASE("OGB reader: missing required file") {
  TempDir dir;
  Files files = good_files();
  files.erase("raw/num-node-list.csv");
  write_dataset(dir.path(), files);
  CHECK_THROWS_WITH_AS(read_ogb_dataset(dir.path()), doctest::Contains("num-node-list.csv.gz: file not found"), IoError);
  CHECK_THROWS_WITH_AS(read_ogb_dataset(dir / "nothing-here"), doctest::Contains("not a directory"), IoError);
}

TEST_CASE("OGB reader: a split file missing beside the others") {
  TempDir dir;
  Files files = good_files();
  files.erase("raw/split/test.csv");
  write_dataset(dir.path(), files);
  CHECK_THROWS_WITH_AS(read_ogb_dataset(dir.path()), doctest::Contains("test.csv.gz: file not found"), IoError);
}

TEST_CASE("OGB reader: unreadable file (a folder where a file should be)") {
  TempDir dir;
  write_dataset(dir.path(), good_files());
  std::filesystem::remove(dir / "raw/node-label.csv.gz");
  std::filesystem::create_directories(dir / "raw/node-label.csv.gz");
  check_error(error_reading(dir.path()), "node-label.csv.gz", 0, "is a directory");
}

TEST_CASE("OGB reader: truncated gzip") {
  TempDir dir;
  write_dataset(dir.path(), good_files());
  std::string text;
  for (int i = 0; i < 200; ++i) text += "0,1\n1,2\n";
  const std::string compressed = sgnn::testing::gzip_bytes(text);
  sgnn::testing::write_text(dir / "raw/edge.csv.gz", compressed.substr(0, compressed.size() / 2));
  check_error(error_reading(dir.path()), "edge.csv.gz", 0, "truncated gzip");
}

TEST_CASE("OGB reader: corrupt gzip and trailing garbage") {
  TempDir dir;
  write_dataset(dir.path(), good_files());
  std::string compressed = sgnn::testing::gzip_bytes("0,1\n1,0\n1,2\n2,3\n3,0\n");
  std::string corrupt = compressed;
  corrupt[12] = static_cast<char>(corrupt[12] ^ 0x5a);
  corrupt[13] = static_cast<char>(corrupt[13] ^ 0x3c);
  sgnn::testing::write_text(dir / "raw/edge.csv.gz", corrupt);
  const IoError error = error_reading(dir.path());
  CHECK(error.file().ends_with("edge.csv.gz"));
  CHECK(error.line() == 0);
  sgnn::testing::write_text(dir / "raw/edge.csv.gz", compressed + "junk");
  check_error(error_reading(dir.path()), "edge.csv.gz", 0, "trailing garbage");
}

TEST_CASE("OGB reader: empty files") {
  check_error(error_with("raw/num-node-list.csv", ""), "num-node-list.csv.gz", 0, "empty file");
  check_error(error_with("raw/node-feat.csv", "\n"), "node-feat.csv.gz", 0, "empty file");
  check_error(error_with("raw/node-label.csv", ""), "node-label.csv.gz", 0, "empty file");
  TempDir dir;
  Files files = good_files();
  files.erase("raw/num-edge-list.csv");
  files["raw/edge.csv"] = "";
  write_dataset(dir.path(), files);
  check_error(error_reading(dir.path()), "edge.csv.gz", 0, "empty file");
}

TEST_CASE("OGB reader: non-numeric tokens") {
  check_error(error_with("raw/edge.csv", "0,1\n1,x\n1,2\n2,3\n3,0\n"), "edge.csv.gz", 2, "expected an integer");
  check_error(error_with("raw/edge.csv", "0,1\n1,0\n1, 2\n2,3\n3,0\n"), "edge.csv.gz", 3, "expected an integer");
  check_error(error_with("raw/edge.csv", "0,1\n1,0\n1,2.0\n2,3\n3,0\n"), "edge.csv.gz", 3, "expected an integer");
  check_error(error_with("raw/node-feat.csv", "1,0,0.5\n0,1,2\n-1.5,zero,0\n0,0,1\n"), "node-feat.csv.gz", 3,
              "expected a number");
  check_error(error_with("raw/node-label.csv", "0\n2\nb\n2\n"), "node-label.csv.gz", 3, "expected an integer");
  check_error(error_with("raw/num-node-list.csv", "four\n"), "num-node-list.csv.gz", 1, "expected an integer");
  check_error(error_with("raw/split/valid.csv", "2a\n"), "valid.csv.gz", 1, "expected an integer");
}

TEST_CASE("OGB reader: wrong column count") {
  check_error(error_with("raw/edge.csv", "0,1\n1,0,1\n1,2\n2,3\n3,0\n"), "edge.csv.gz", 2, "expected 2");
  check_error(error_with("raw/edge.csv", "0,1\n1,0\n1\n2,3\n3,0\n"), "edge.csv.gz", 3, "expected 2");
  check_error(error_with("raw/edge.csv", "0,1\n\n1,0\n2,3\n3,0\n"), "edge.csv.gz", 2, "expected 2");
  check_error(error_with("raw/node-label.csv", "0\n2\n1,1\n2\n"), "node-label.csv.gz", 3, "expected 1 value");
  check_error(error_with("raw/num-node-list.csv", "4\n4\n"), "num-node-list.csv.gz", 2, "single line");
}

TEST_CASE("OGB reader: negative ids") {
  check_error(error_with("raw/edge.csv", "0,1\n1,0\n-1,2\n2,3\n3,0\n"), "edge.csv.gz", 3, "is negative");
  check_error(error_with("raw/num-node-list.csv", "-4\n"), "num-node-list.csv.gz", 1, "is negative");
}

TEST_CASE("OGB reader: id >= num_nodes") {
  check_error(error_with("raw/edge.csv", "0,1\n1,0\n1,2\n2,4\n3,0\n"), "edge.csv.gz", 4, ">= num_nodes 4");
}

TEST_CASE("OGB reader: ids that overflow the index type") {
  check_error(error_with("raw/edge.csv", "0,1\n1,0\n1,2\n2,3\n3,99999999999999999999\n"), "edge.csv.gz", 5,
              "overflows the index type");
  check_error(error_with("raw/edge.csv", "0,1\n1,0\n1,2\n2,3\n3,4294967296\n"), "edge.csv.gz", 5,
              "overflows the index type (int32)");
  check_error(error_with("raw/num-node-list.csv", "3000000000\n"), "num-node-list.csv.gz", 1, "overflows");
  check_error(error_with("raw/node-label.csv", "0\n2\n1\n2147483648\n"), "node-label.csv.gz", 4, "overflows");
}

TEST_CASE("OGB reader: counts that contradict num-node-list and num-edge-list") {
  check_error(error_with("raw/num-edge-list.csv", "6\n"), "edge.csv.gz", 0, "has 5 edges but num-edge-list.csv.gz says 6");
  check_error(error_with("raw/num-edge-list.csv", "4\n"), "edge.csv.gz", 5, "has 5 edges");
  check_error(error_with("raw/node-feat.csv", "1,0,0.5\n0,1,2\n-1.5,0,0\n"), "node-feat.csv.gz", 0, "3 feature rows");
  check_error(error_with("raw/node-feat.csv", "1\n2\n3\n4\n5\n"), "node-feat.csv.gz", 5, "5 feature rows");
  check_error(error_with("raw/node-label.csv", "0\n2\n1\n2\n0\n"), "node-label.csv.gz", 5, "5 labels");
  check_error(error_with("raw/node-label.csv", "0\n2\n"), "node-label.csv.gz", 0, "2 labels");
}

TEST_CASE("OGB reader: NaN and Inf features") {
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "1e39"}) {
    check_error(error_with("raw/node-feat.csv", std::string("1,0,0.5\n0,1,2\n-1.5,0,0\n0,") + bad + ",1\n"),
                "node-feat.csv.gz", 4, "feature value");
  }
}

TEST_CASE("OGB reader: feature rows of different lengths") {
  check_error(error_with("raw/node-feat.csv", "1,0,0.5\n0,1,2\n-1.5,0\n0,0,1\n"), "node-feat.csv.gz", 3,
              "row has 2 feature values, the rows before have 3");
  check_error(error_with("raw/node-feat.csv", "1,0,0.5\n0,1,2,3\n-1.5,0,0\n0,0,1\n"), "node-feat.csv.gz", 2,
              "row has 4 feature values");
  check_error(error_with("raw/node-feat.csv", "1,0,0.5\n0,1,\n-1.5,0,0\n0,0,1\n"), "node-feat.csv.gz", 2,
              "expected a number");
  // 200001 rows of 3 values then 300000 of 2: 2400006 bytes parse as two chunks,
  // the second starting exactly at the first short row.
  std::string text;
  for (int i = 0; i < 200001; ++i) text += "1,2,3\n";
  for (int i = 0; i < 300000; ++i) text += "1,2\n";
  REQUIRE(text.size() == 2400006);
  check_error(error_with("raw/node-feat.csv", text), "node-feat.csv.gz", 200002,
              "row has 2 feature values, the rows before have 3");
}

TEST_CASE("OGB reader: labels out of range") {
  check_error(error_with("raw/node-label.csv", "0\n-2\n1\n2\n"), "node-label.csv.gz", 2, "out of range");
}

TEST_CASE("OGB reader: split ids out of range, repeated, or in two splits") {
  check_error(error_with("raw/split/train.csv", "0\n4\n"), "train.csv.gz", 2, ">= num_nodes 4");
  check_error(error_with("raw/split/train.csv", "0\n-1\n"), "train.csv.gz", 2, "negative");
  check_error(error_with("raw/split/train.csv", "0\n1\n0\n"), "train.csv.gz", 3, "repeated in this split");
  check_error(error_with("raw/split/test.csv", "3\n1\n"), "test.csv.gz", 2, "already in the train split");
}

TEST_CASE("load_dataset lists the places searched when a name is not found") {
  try {
    load_dataset("no-such-dataset-xyz");
    FAIL("no error");
  } catch (const IoError& error) {
    const std::string message = error.what();
    CHECK(message.find("data/no-such-dataset-xyz") != std::string::npos);
    CHECK(message.find("SGNN_DATA") != std::string::npos);
    CHECK(message.find("share/sparsegnn/datasets/no-such-dataset-xyz") != std::string::npos);  // the bundled folder
    CHECK(message.find("shared/data") == std::string::npos);  // no folder of a build machine
  }
  CHECK_THROWS_WITH_AS(load_dataset("./missing/dir"), doctest::Contains("no such file"), IoError);
}

TEST_CASE("load_dataset finds a named dataset through SGNN_DATA") {
  TempDir dir;
  write_dataset(dir / "tiny", good_files());
  const ScopedEnvironment data("SGNN_DATA", dir.path().c_str());
  const Dataset d = load_dataset("tiny");
  CHECK(d.name == "tiny");
  CHECK(d.num_nodes() == 4);
  CHECK(d.edges.num_edges() == 5);
}

namespace {

struct Expected {
  const char* name;
  int64_t nodes, edges, features, classes, train, valid, test;
};

void check_real_dataset(const Expected& e) {
  const Dataset d = read_ogb_dataset(sgnn::testing::bundled_dataset(e.name));
  CHECK(d.name == e.name);
  CHECK(d.num_nodes() == e.nodes);
  CHECK(d.edges.num_edges() == e.edges);
  CHECK(d.features.shape() == Shape{e.nodes, e.features});
  CHECK(d.num_classes == e.classes);
  CHECK(d.train_index.numel() == e.train);
  CHECK(d.valid_index.numel() == e.valid);
  CHECK(d.test_index.numel() == e.test);
  d.edges.validate();
  // Binary bag-of-words features.
  for (const float v : d.features.to_vector<float>()) {
    if (v != 0.0f && v != 1.0f) {
      FAIL("non-binary feature " << v);
      break;
    }
  }
}

}  // namespace

TEST_CASE("Cora and Citeseer load with PyG's counts") {
  check_real_dataset({"cora", 2708, 10556, 1433, 7, 140, 500, 1000});
  check_real_dataset({"citeseer", 3327, 9104, 3703, 6, 120, 500, 1000});
}
