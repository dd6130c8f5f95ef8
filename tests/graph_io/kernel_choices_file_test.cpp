#include <doctest/doctest.h>

#include "graph_io/kernel_choices_file.hpp"
#include "tests/graph_io/temp_files.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::TempDir;

TEST_CASE("kernel choices file: stored beside the adjacency cache, read back for the same graph and device model") {
  TempDir dir;
  const std::filesystem::path file = kernel_choices_path(dir / "adjacency-00ff.sgnn");
  CHECK(file.filename() == "adjacency-00ff.sgnn.choices");
  const ChoiceMap choices{{"csr/spmm-tile:h1:f128", "v4s16r2"}, {"transpose/sddmm:h8:f8", "edge-groups-2"}};
  std::string problem;
  CHECK_FALSE(load_kernel_choices(file, 7, "NVIDIA H100 80GB HBM3", problem).has_value());
  CHECK(problem.empty());  // simply absent
  store_kernel_choices(file, 7, "NVIDIA H100 80GB HBM3", choices);
  const std::optional<ChoiceMap> loaded = load_kernel_choices(file, 7, "NVIDIA H100 80GB HBM3", problem);
  REQUIRE(loaded.has_value());
  CHECK(*loaded == choices);
}

TEST_CASE("kernel choices file: another graph, another device model, damage and truncation are refused with a reason") {
  TempDir dir;
  const std::filesystem::path file = dir / "a.choices";
  store_kernel_choices(file, 7, "NVIDIA H100 80GB HBM3", {{"csr/spmm-format:f64", "hrpb"}});
  std::string problem;
  CHECK_FALSE(load_kernel_choices(file, 8, "NVIDIA H100 80GB HBM3", problem).has_value());
  CHECK(problem.find("fingerprint") != std::string::npos);
  CHECK_FALSE(load_kernel_choices(file, 7, "NVIDIA H200", problem).has_value());
  CHECK(problem.find("timed on a NVIDIA H100 80GB HBM3") != std::string::npos);
  std::string bytes = sgnn::testing::read_bytes(file);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x20);
  sgnn::testing::write_text(file, bytes);
  CHECK_FALSE(load_kernel_choices(file, 7, "NVIDIA H100 80GB HBM3", problem).has_value());
  CHECK_FALSE(problem.empty());
  sgnn::testing::write_text(file, bytes.substr(0, 10));
  CHECK_FALSE(load_kernel_choices(file, 7, "NVIDIA H100 80GB HBM3", problem).has_value());
  CHECK(problem.find("truncated") != std::string::npos);
}
