// read_node_list: the node selections of sgnn_predict --nodes.
#include <doctest/doctest.h>

#include "graph_io/readers/readers.hpp"
#include "tests/graph_io/temp_files.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::TempDir;

TEST_CASE("node list: ids in file order, comments and blank lines skipped, gzip read") {
  TempDir dir;
  sgnn::testing::write_text(dir / "nodes.txt", "# new nodes\n7\n  2\t\n\n% more\n0\r\n9\n\n");
  CHECK(read_node_list(dir / "nodes.txt", 10) == std::vector<int32_t>{7, 2, 0, 9});
  sgnn::testing::write_text(dir / "nodes.txt.gz", sgnn::testing::gzip_bytes("3\n1\n"));
  CHECK(read_node_list(dir / "nodes.txt.gz", 4) == std::vector<int32_t>{3, 1});
}

TEST_CASE("node list: each bad line is refused with its line number and reason") {
  TempDir dir;
  const auto problem = [&](const std::string& text) -> std::string {
    sgnn::testing::write_text(dir / "bad.txt", text);
    try {
      read_node_list(dir / "bad.txt", 10);
    } catch (const IoError& error) {
      return error.what();
    }
    return "accepted";
  };
  CHECK(problem("1\n10\n").find("bad.txt:2") != std::string::npos);
  CHECK(problem("1\n10\n").find("node id 10 >= the graph's 10 nodes") != std::string::npos);
  CHECK(problem("# x\n-1\n").find("bad.txt:2: node id -1 is negative") != std::string::npos);
  CHECK(problem("1\n2 3\n").find("expected an integer node id") != std::string::npos);
  CHECK(problem("4\n# again\n4\n").find("bad.txt:3: node id 4 is listed again (first on line 1)") != std::string::npos);
  CHECK(problem("# only a comment\n\n").find("lists no node id") != std::string::npos);
  CHECK(problem("").find("lists no node id") != std::string::npos);
  CHECK_THROWS_AS(read_node_list(dir / "missing.txt", 10), IoError);
}
