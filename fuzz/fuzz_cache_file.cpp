// libFuzzer target: the adjacency cache, the HRPB cache and the section file
// reader on arbitrary bytes. Only sgnn::Error may escape; a cache that loads
// has consistent sizes, and an HRPB that loads decodes back to a CSR of its
// own size (hrpb_to_csr reads every block record and pattern).
#include "core/error.hpp"
#include "fuzz/fuzz_input_file.hpp"
#include "graph_io/adjacency_cache.hpp"
#include "graph_io/hrpb_cache.hpp"
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
  if (const auto hrpb = sgnn::graph_io::load_hrpb_cache(file, 0, problem)) {
    for (const sgnn::Hrpb* layout : {&hrpb->forward, &hrpb->transpose}) {
      const sgnn::HrpbAsCsr csr = sgnn::hrpb_to_csr(*layout);
      if (csr.indptr.numel() != layout->num_rows + 1 || csr.indices.numel() != layout->nnz) std::abort();
    }
  }
  return 0;
}
