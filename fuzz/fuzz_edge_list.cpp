// libFuzzer target: read_edge_list on arbitrary bytes. The first byte picks
// the options (1-based ids, a fixed node count). Only sgnn::Error may escape.
#include "core/error.hpp"
#include "fuzz/fuzz_input_file.hpp"
#include "graph_io/readers/readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  sgnn::graph_io::EdgeListOptions options;
  options.one_based = (data[0] & 1) != 0;
  options.num_nodes = (data[0] & 2) != 0 ? 1000 : -1;
  const auto file = sgnn::fuzz::scratch_folder() / "edges.txt";
  sgnn::fuzz::write_file(file, data + 1, size - 1);
  try {
    const sgnn::graph_io::Dataset d = sgnn::graph_io::read_edge_list(file, options);
    d.edges.validate();  // a returned graph is always valid
  } catch (const sgnn::Error&) {
  }
  return 0;
}
