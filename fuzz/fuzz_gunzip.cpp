// libFuzzer target: gzip decompression of arbitrary bytes (truncated,
// corrupt, concatenated members). Only sgnn::Error may escape.
#include <string_view>

#include "core/error.hpp"
#include "graph_io/readers/file_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  try {
    (void)sgnn::graph_io::gunzip(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.gz");
  } catch (const sgnn::Error&) {
  }
  return 0;
}
