// libFuzzer target: read_matrix_market on arbitrary bytes. Only sgnn::Error may escape.
#include "core/error.hpp"
#include "fuzz/fuzz_input_file.hpp"
#include "graph_io/readers/readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto file = sgnn::fuzz::scratch_folder() / "matrix.mtx";
  sgnn::fuzz::write_file(file, data, size);
  try {
    const sgnn::graph_io::Dataset d = sgnn::graph_io::read_matrix_market(file);
    d.edges.validate();
  } catch (const sgnn::Error&) {
  }
  return 0;
}
