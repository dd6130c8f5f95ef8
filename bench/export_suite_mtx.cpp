// export_suite_mtx: writes graphs of the broad benchmark suite
// (bench/support/bench_suite.hpp) as Matrix Market files, so that programs
// outside the project (peer kernel libraries' own benchmark drivers, such as
// dgSPARSE-Lib's SDDMM and GE-SpMM examples) time exactly the matrices
// bench_sparse times: the same pattern, the same entry order, built on the
// CPU. Values are written too (the GCN normalisation), as "real general".
//
//   export_suite_mtx --out DIR [--graph SUBSTRING]... [--quick]
//
// Writes DIR/<case number>.mtx for each case whose name contains one of the
// substrings (every case without --graph) and prints "<file>\t<case name>"
// per file. Each file is written beside its final name and renamed into place.
// GCC 12 reports -Wnull-dereference inside CLI11's inlined string code (a
// false positive the system-header exemption misses).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "bench/support/bench_suite.hpp"
#include "core/error.hpp"

namespace {

using namespace sgnn;
namespace fs = std::filesystem;

template <typename Offset>
void write_entries(std::FILE* file, const Adjacency& adjacency) {
  const Offset* indptr = adjacency.csr.indptr.data<Offset>();
  const int32_t* indices = adjacency.csr.indices.data<int32_t>();
  const float* values = adjacency.values.defined() ? adjacency.values.data<float>() : nullptr;
  for (int64_t row = 0; row < adjacency.num_rows(); ++row) {
    for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) {
      std::fprintf(file, "%lld %d %.9g\n", static_cast<long long>(row + 1), indices[e] + 1,
                   static_cast<double>(values != nullptr ? values[e] : 1.0f));
    }
  }
}

void write_matrix_market(const Adjacency& adjacency, const fs::path& path) {
  const fs::path partial = path.string() + ".partial";
  std::FILE* file = std::fopen(partial.c_str(), "w");
  if (file == nullptr) throw IoError(partial.string(), 0, "cannot create the file");
  std::fprintf(file, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n",
               static_cast<long long>(adjacency.num_rows()), static_cast<long long>(adjacency.num_cols()),
               static_cast<long long>(adjacency.nnz()));
  if (adjacency.csr.indptr.dtype() == DType::Int32) write_entries<int32_t>(file, adjacency);
  else write_entries<int64_t>(file, adjacency);
  const bool failed = std::ferror(file) != 0;
  if (std::fclose(file) != 0 || failed) {
    fs::remove(partial);
    throw IoError(partial.string(), 0, "writing failed (disk full?)");
  }
  fs::rename(partial, path);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Write cases of the broad benchmark suite as Matrix Market files"};
  std::string out;
  std::vector<std::string> filters;
  bool quick = false;
  app.add_option("--out", out, "output folder")->required();
  app.add_option("--graph", filters, "only the cases whose name contains one of these");
  app.add_flag("--quick", quick, "the quick suite's small cases");
  CLI11_PARSE(app, argc, argv);
  try {
    fs::create_directories(out);
    const std::vector<bench::SuiteCase> cases = bench::broad_suite(quick);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      bool wanted = filters.empty();
      for (const std::string& filter : filters) wanted |= cases[i].name.find(filter) != std::string::npos;
      if (!wanted) continue;
      const fs::path path = fs::path(out) / (std::to_string(i) + ".mtx");
      write_matrix_market(cases[i].adjacency(Device::cpu()), path);
      std::cout << path.string() << "\t" << cases[i].name << std::endl;
    }
  } catch (const std::exception& error) {
    std::cerr << "export_suite_mtx: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
