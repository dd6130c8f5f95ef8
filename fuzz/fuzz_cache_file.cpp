// libFuzzer target: the adjacency cache / section file reader on arbitrary
// bytes. Only sgnn::Error may escape; a cache that loads has consistent sizes.
#include "core/error.hpp"
#include "fuzz/fuzz_input_file.hpp"
#include "graph_io/adjacency_cache.hpp"
#include "graph_io/section_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto file = sgnn::fuzz::scratch_folder() / "cache.sgnn";
  sgnn::fuzz::write_file(file, data, size);
  try {
    (void)sgnn::graph_io::read_section_file(file, "checkpoint", 1);
  } catch (const sgnn::Error&) {
  }
  std::string problem;
  // Any fingerprint: the seeds are written with 0.
  const auto cached = sgnn::graph_io::load_adjacency_cache(file, 0, problem);
  if (cached && cached->adjacency.csr.indptr.numel() != cached->adjacency.num_rows() + 1) std::abort();
  return 0;
}
