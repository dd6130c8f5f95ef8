#include <doctest/doctest.h>

#include "graph_io/load_dataset.hpp"
#include "graph_io/readers/readers.hpp"
#include "tests/graph_io/temp_files.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::TempDir;

namespace {

std::vector<int32_t> ints(const Tensor& t) { return t.to_vector<int32_t>(); }

// The IoError of reading `text` as a file named `name` with `read`.
template <typename Read>
IoError error_of(const std::string& name, const std::string& text, const Read& read) {
  TempDir dir;
  sgnn::testing::write_text(dir / name, text);
  try {
    read(dir / name);
  } catch (const IoError& error) {
    return error;
  }
  FAIL("no IoError for " << name << ": " << text);
  return IoError("", 0, "");
}

IoError edge_list_error(const std::string& text, EdgeListOptions options = {}) {
  return error_of("g.txt", text, [&](const std::filesystem::path& p) { read_edge_list(p, options); });
}

IoError matrix_market_error(const std::string& text) {
  return error_of("g.mtx", text, [](const std::filesystem::path& p) { read_matrix_market(p); });
}

void check_error(const IoError& error, int64_t line, const std::string& reason_part) {
  INFO(error.what());
  CHECK(error.line() == line);
  CHECK(error.reason().find(reason_part) != std::string::npos);
}

}  // namespace

TEST_CASE("edge list: whitespace, commas, comments, blank lines") {
  TempDir dir;
  sgnn::testing::write_text(dir / "g.txt", "# a comment\n% another\n0 1\n1\t2\n\n  2 ,0\n3,1\n");
  const Dataset d = read_edge_list(dir / "g.txt", {});
  CHECK(d.name == "g");
  CHECK(d.num_nodes() == 4);
  CHECK(ints(d.edges.source) == std::vector<int32_t>{0, 1, 2, 3});
  CHECK(ints(d.edges.target) == std::vector<int32_t>{1, 2, 0, 1});
  CHECK_FALSE(d.edges.weight.defined());
  CHECK_FALSE(d.features.defined());
}

TEST_CASE("edge list: a UTF-8 byte order mark is skipped") {
  TempDir dir;
  sgnn::testing::write_text(dir / "bom.csv", "\xEF\xBB\xBF" "0,1\n1,2\n");
  const Dataset d = read_edge_list(dir / "bom.csv", {});
  CHECK(ints(d.edges.source) == std::vector<int32_t>{0, 1});
}

TEST_CASE("edge list: weight column, 1-based ids, a given node count, gzip") {
  TempDir dir;
  sgnn::testing::write_gzip(dir / "w.txt.gz", "1 2 0.5\n2 3 -2e1\n3 1 4\n");
  EdgeListOptions options;
  options.one_based = true;
  options.num_nodes = 10;
  const Dataset d = read_edge_list(dir / "w.txt.gz", options);
  CHECK(d.name == "w");
  CHECK(d.num_nodes() == 10);
  CHECK(ints(d.edges.source) == std::vector<int32_t>{0, 1, 2});
  CHECK(ints(d.edges.target) == std::vector<int32_t>{1, 2, 0});
  CHECK(d.edges.weight.to_vector<float>() == std::vector<float>{0.5f, -20.0f, 4.0f});
}

TEST_CASE("edge list: every bad input is an IoError with its line") {
  CHECK(edge_list_error("").reason().find("empty file") != std::string::npos);
  CHECK(edge_list_error("# only comments\n\n").reason().find("empty file") != std::string::npos);
  check_error(edge_list_error("0 1\n1 x\n"), 2, "expected an integer");
  check_error(edge_list_error("0 1\n1 2 3 4\n"), 2, "got 4 field(s)");
  check_error(edge_list_error("0 1\n1\n"), 2, "got 1 field(s)");
  check_error(edge_list_error("0 1\n1 2 1.0\n"), 2, "the edge lines before have 2");
  check_error(edge_list_error("0 1\n-1 2\n"), 2, "is negative");
  check_error(edge_list_error("0 1\n1 2,,\n"), 2, "field(s)");
  check_error(edge_list_error("0 1 nan\n"), 1, "not finite");
  check_error(edge_list_error("0 1 1e50\n"), 1, "out of float32 range");
  check_error(edge_list_error("0 1\n1 2147483647\n"), 2, "overflows the index type (int32)");
  check_error(edge_list_error("0 1\n1 99999999999999999999\n"), 2, "overflows the index type");
  EdgeListOptions one_based;
  one_based.one_based = true;
  check_error(edge_list_error("1 2\n0 2\n", one_based), 2, "0 in a file read as 1-based");
  EdgeListOptions bounded;
  bounded.num_nodes = 3;
  check_error(edge_list_error("0 1\n1 3\n", bounded), 2, ">= num_nodes 3");
  CHECK(error_of("g.txt.gz", sgnn::testing::gzip_bytes("0 1\n").substr(0, 10),
                 [](const std::filesystem::path& p) { read_edge_list(p, {}); })
            .reason()
            .find("truncated gzip") != std::string::npos);
  TempDir dir;
  CHECK_THROWS_WITH_AS(read_edge_list(dir / "missing.txt", {}), doctest::Contains("file not found"), IoError);
  EdgeListOptions negative;
  negative.num_nodes = -5;
  sgnn::testing::write_text(dir / "ok.txt", "0 1\n");
  CHECK_THROWS_AS(read_edge_list(dir / "ok.txt", negative), InvalidArgument);
}

TEST_CASE("edge list: a width change is located within and across parallel parsing chunks") {
  // 120001 lines of 10 bytes then 100000 of 12 bytes: 2400010 bytes parse as two
  // chunks and the second one starts exactly at the first 3-field line.
  std::string text;
  for (int i = 0; i < 120001; ++i) text += "1000 2000\n";
  for (int i = 0; i < 100000; ++i) text += "1000 2000 1\n";
  REQUIRE(text.size() == 2400010);
  check_error(edge_list_error(text), 120002, "line has 3 fields, the edge lines before have 2");
  // One line later, the change falls inside the second chunk (its second line).
  std::string shifted = "1000 2000\n" + text.substr(0, text.size() - 12);
  check_error(edge_list_error(shifted), 120003, "the edge lines before have 2");
  std::string bad_token = text;
  bad_token.replace(10 * 100000, 9, "1000 200x");
  check_error(edge_list_error(bad_token), 100001, "expected an integer");
}

TEST_CASE("Matrix Market: general, symmetric, pattern and integer files") {
  TempDir dir;
  sgnn::testing::write_text(dir / "a.mtx",
                            "%%MatrixMarket matrix coordinate real general\n% comment\n3 3 3\n1 2 0.5\n3 1 2\n2 2 -1\n");
  const Dataset a = read_matrix_market(dir / "a.mtx");
  CHECK(a.name == "a");
  CHECK(a.num_nodes() == 3);
  // Entry (i, j) is the edge j -> i.
  CHECK(ints(a.edges.source) == std::vector<int32_t>{1, 0, 1});
  CHECK(ints(a.edges.target) == std::vector<int32_t>{0, 2, 1});
  CHECK(a.edges.weight.to_vector<float>() == std::vector<float>{0.5f, 2.0f, -1.0f});

  sgnn::testing::write_text(dir / "s.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 3\n4 2\n");
  const Dataset s = read_matrix_market(dir / "s.mtx");
  CHECK(ints(s.edges.source) == std::vector<int32_t>{0, 1, 2, 1, 3});
  CHECK(ints(s.edges.target) == std::vector<int32_t>{1, 0, 2, 3, 1});
  CHECK_FALSE(s.edges.weight.defined());

  sgnn::testing::write_gzip(dir / "i.mtx.gz", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 7\n");
  const Dataset i = read_matrix_market(dir / "i.mtx.gz");
  CHECK(i.name == "i");
  CHECK(i.edges.weight.to_vector<float>() == std::vector<float>{7.0f});
}

TEST_CASE("Matrix Market: unsupported kinds and bad input are refused with their line") {
  const std::string head = "%%MatrixMarket matrix coordinate real general\n";
  CHECK(matrix_market_error("").reason().find("empty file") != std::string::npos);
  check_error(matrix_market_error("hello\n"), 1, "expected the banner");
  check_error(matrix_market_error("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"), 1, "only sparse");
  check_error(matrix_market_error("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n"), 1, "complex");
  check_error(matrix_market_error("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n"), 1, "hermitian");
  check_error(matrix_market_error("%%MatrixMarket matrix coordinate real skew-symmetric\n1 1 0\n"), 1, "skew-symmetric");
  CHECK(matrix_market_error(head + "% only comments\n").reason().find("size line") != std::string::npos);
  check_error(matrix_market_error(head + "2 3 1\n1 1 1\n"), 2, "must be square");
  check_error(matrix_market_error(head + "2 2 x\n"), 2, "expected an integer");
  check_error(matrix_market_error(head + "2 2 2\n1 1 1\n"), 0, "has 1 entries");
  check_error(matrix_market_error(head + "2 2 1\n1 1 1\n2 2 1\n"), 4, "has 2 entries");
  check_error(matrix_market_error(head + "2 2 2\n1 1 1\n0 1 1\n"), 4, "ids start at 1");
  check_error(matrix_market_error(head + "2 2 2\n1 1 1\n3 1 1\n"), 4, "> the matrix size 2");
  check_error(matrix_market_error(head + "2 2 2\n1 1 1\n1 2\n"), 4, "expected 3 fields");
  check_error(matrix_market_error(head + "2 2 2\n1 1 1\n1 2 inf\n"), 4, "not finite");
  check_error(matrix_market_error("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n1 2\n"), 3,
              "above the diagonal");
  check_error(matrix_market_error(head + "3000000000 3000000000 0\n"), 2, "overflows");
}

TEST_CASE("load_dataset picks the reader by path type and extension") {
  TempDir dir;
  sgnn::testing::write_text(dir / "m.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n");
  sgnn::testing::write_text(dir / "e.csv", "0,1\n1,2\n");
  CHECK(load_dataset((dir / "m.mtx").string()).num_nodes() == 2);
  CHECK(load_dataset((dir / "e.csv").string()).num_nodes() == 3);
  std::filesystem::create_directories(dir / "empty-folder");
  CHECK_THROWS_WITH_AS(load_dataset((dir / "empty-folder").string()), doctest::Contains("neither an OGB raw-layout"), IoError);
}
